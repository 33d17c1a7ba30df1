/**
 * Request ids. Rules: an incoming `X-Request-Id` made of 1–128 characters of [A-Za-z0-9._:-]
 * is kept (so a gateway's id follows the request); anything else is replaced by a new UUID.
 * Every response carries the id.
 */
import { randomUUID } from 'node:crypto';
import type { Next } from 'koa';
import type { ApiContext } from './state.ts';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function requestId(ctx: ApiContext, next: Next): Promise<void> {
  const incoming = ctx.get('X-Request-Id');
  ctx.state.requestId = SAFE_ID.test(incoming) ? incoming : randomUUID();
  ctx.set('X-Request-Id', ctx.state.requestId);
  await next();
}
