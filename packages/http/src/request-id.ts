/**
 * Request ids. Rules: an incoming `X-Request-Id` of 1–128 characters of [A-Za-z0-9._:-] is kept
 * (so the id a gateway such as nginx generated follows the request through every app); anything
 * else, or none, is replaced by a new UUID. The id goes into `ctx.state.requestId` and every
 * response carries it as `X-Request-Id`. Mount it before the access log and the error handler.
 */
import { randomUUID } from 'node:crypto';
import type { Next, ParameterizedContext } from 'koa';

/** What {@link requestId} puts into `ctx.state`. */
export interface RequestIdState {
  requestId: string;
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Whether an incoming `X-Request-Id` is kept as it is. */
export function isSafeRequestId(value: string): boolean {
  return SAFE_ID.test(value);
}

/** Koa middleware: sets `ctx.state.requestId` and the `X-Request-Id` response header. */
export async function requestId(ctx: ParameterizedContext<RequestIdState>, next: Next): Promise<void> {
  const incoming = ctx.get('X-Request-Id');
  ctx.state.requestId = isSafeRequestId(incoming) ? incoming : randomUUID();
  ctx.set('X-Request-Id', ctx.state.requestId);
  await next();
}
