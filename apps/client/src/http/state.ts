import type { ParameterizedContext } from 'koa';
import type { RequestIdState } from '@gatehouse/http';

/** What the middleware of one request of the relying party learn (the session lives in ctx.session). */
export type ClientState = RequestIdState;

export type ClientContext = ParameterizedContext<ClientState>;
