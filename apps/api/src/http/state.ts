import type { ParameterizedContext } from 'koa';
import type { RequestIdState } from '@gatehouse/http';
import type { Principal } from '../auth/principal.ts';
import type { VersionSpec } from '../collections/collection-config.ts';
import type { Negotiated } from '../representations/negotiate.ts';

/** What the middleware of one request learn, in order. */
export interface ApiState extends RequestIdState {
  /** Set once the Accept header was negotiated. */
  negotiated?: Negotiated;
  /** Set once the version was resolved. */
  version?: VersionSpec;
  principal?: Principal;
}

export type ApiContext = ParameterizedContext<ApiState>;
