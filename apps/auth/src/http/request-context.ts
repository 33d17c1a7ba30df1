/**
 * Outermost middleware of the authorization server:
 * - every response carries X-Request-Id (taken from the request when it looks safe);
 * - one structured log line per request: method, path without query, status, duration;
 *   never the query string, body, cookies or Authorization header (they carry codes and secrets);
 * - an exposed AuthError becomes its status with a JSON or HTML body; an unreachable database
 *   (thrown here, or reported by oidc-provider as a server_error: ctx.state.databaseUnavailable)
 *   becomes 503 `temporarily_unavailable` with Retry-After; anything else becomes a generic 500
 *   with the request id, and the stack goes to the log only.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { isDatabaseUnavailable } from '@gatehouse/db';
import { AuthError } from '../errors/auth-error.ts';
import type { Logger } from '../logging/logger.ts';
import { messagePage } from '../views/message-page.ts';

const SAFE_ID = /^[\w.:-]{1,128}$/;

const databaseUnavailable = (cause: unknown) =>
  new AuthError(503, 'temporarily_unavailable', 'The service cannot reach its database right now. Try again in a moment.', {
    headers: { 'Retry-After': '5' },
    cause,
  });

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
    let json = false;
    try {
      await next();
      // oidc-provider answered a server_error itself (JSON for its API endpoints); its listener marked a database outage.
      if (ctx.state.databaseUnavailable && ctx.status === 500) {
        json = Boolean(ctx.response.is('json'));
        throw databaseUnavailable(undefined);
      }
    } catch (thrown) {
      const error =
        thrown instanceof AuthError
          ? thrown
          : isDatabaseUnavailable(thrown)
            ? databaseUnavailable(thrown)
            : new AuthError(500, 'server_error', 'Something went wrong on our side. Try again later.', { cause: thrown });
      if (error.code === 'temporarily_unavailable') logger.warn({ event: 'database.unavailable', request_id: requestId }, 'database unavailable');
      else if (error.status >= 500) logger.error({ err: thrown, request_id: requestId }, 'unhandled error');
      ctx.status = error.status;
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      if (json || wantsJson(ctx)) {
        ctx.body = { error: error.code, error_description: error.message };
      } else {
        ctx.type = 'html';
        const title = error.status === 503 ? 'Temporarily unavailable' : error.status >= 500 ? 'Server error' : 'Request refused';
        ctx.body = messagePage(title, error.message, { code: error.code, requestId });
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
