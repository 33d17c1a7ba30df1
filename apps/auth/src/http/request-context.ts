/**
 * Outermost middleware of the authorization server:
 * - every response carries X-Request-Id (taken from the request when it looks safe);
 * - one structured log line per request: method, path without query, status, duration;
 *   never the query string, body, cookies or Authorization header (they carry codes and secrets);
 * - an exposed AuthError becomes its status with a JSON or HTML body; anything else becomes a
 *   generic 500 with the request id, and the stack goes to the log only.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { AuthError } from '../errors/auth-error.ts';
import type { Logger } from '../logging/logger.ts';
import { messagePage } from '../views/message-page.ts';

const SAFE_ID = /^[\w.:-]{1,128}$/;

function wantsJson(ctx: Context): boolean {
  return Boolean(ctx.request.is('application/json')) || ctx.accepts('html', 'json') === 'json';
}

export function requestContext(logger: Logger) {
  return async function handleRequest(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    const incoming = ctx.get('X-Request-Id');
    const requestId = SAFE_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } catch (thrown) {
      const error =
        thrown instanceof AuthError
          ? thrown
          : new AuthError(500, 'server_error', 'Something went wrong on our side. Try again later.', { cause: thrown });
      if (error.status >= 500) logger.error({ err: thrown, request_id: requestId }, 'unhandled error');
      ctx.status = error.status;
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      if (wantsJson(ctx)) {
        ctx.body = { error: error.code, error_description: error.message };
      } else {
        ctx.type = 'html';
        ctx.body = messagePage(error.status >= 500 ? 'Server error' : 'Request refused', error.message, { code: error.code, requestId });
      }
    } finally {
      const status = ctx.status;
      const line = { request_id: requestId, method: ctx.method, path: ctx.path, status, ms: Math.round(performance.now() - started) };
      if (status >= 500) logger.error(line, 'request');
      else if (status >= 400) logger.debug(line, 'request');
      else logger.info(line, 'request');
    }
  };
}
