/**
 * The authorization server's error handler, inside the shared request id, access log and
 * security headers (@gatehouse/http; order in app.ts):
 * - an exposed AuthError becomes its status with a JSON or HTML body (responseFormat: one rule
 *   for the whole server); JSON is RFC 6749 style `error` + `error_description`;
 * - an unreachable database (thrown here, or reported by oidc-provider as a server_error:
 *   ctx.state.databaseUnavailable) becomes 503 `temporarily_unavailable` with Retry-After;
 * - anything else becomes a generic 500 `server_error` with the request id, and the stack goes
 *   to the log only.
 */
import type { Next } from 'koa';
import { isDatabaseUnavailable } from '@gatehouse/db';
import { responseFormat } from '@gatehouse/http';
import { AuthError } from '../errors/auth-error.ts';
import type { Logger } from '../logging/logger.ts';
import { messagePage } from '../views/message-page.ts';
import type { AuthContext } from './state.ts';

const databaseUnavailable = (cause: unknown) =>
  new AuthError(503, 'temporarily_unavailable', 'The service cannot reach its database right now. Try again in a moment.', {
    headers: { 'Retry-After': '5' },
    cause,
  });

/** The human heading of an error page. */
function errorTitle(error: AuthError): string {
  if (error.status === 503) return 'Temporarily unavailable';
  if (error.status >= 500) return 'Something went wrong';
  if (error.code === 'not_found') return 'Page not found';
  if (error.code === 'interaction_expired') return 'This sign-in has expired';
  if (error.status === 429) return 'Too many attempts';
  return 'Request refused';
}

/** Where an error page leads when the error names no way of its own: every page offers one. */
const DEFAULT_WAYS: Partial<Record<string, { label: string; href: string }>> = {
  not_found: { label: 'Go to your account', href: '/account' },
  method_not_allowed: { label: 'Go to your account', href: '/account' },
};

export function errorHandler(logger: Logger) {
  return async function handleErrors(ctx: AuthContext, next: Next): Promise<void> {
    const requestId = ctx.state.requestId;
    try {
      await next();
      // oidc-provider answered a server_error itself (JSON for its API endpoints); its listener marked a database outage.
      if (ctx.state.databaseUnavailable && ctx.status === 500) throw databaseUnavailable(undefined);
    } catch (thrown) {
      const error =
        thrown instanceof AuthError
          ? thrown
          : isDatabaseUnavailable(thrown)
            ? databaseUnavailable(thrown)
            : new AuthError(500, 'server_error', 'Something went wrong on our side. Try again later.', { cause: thrown });
      if (error.code === 'temporarily_unavailable') logger.warn({ event: 'database.unavailable', request_id: requestId }, 'database unavailable');
      else if (error.status >= 500) logger.error({ event: 'http.unhandled_error', err: thrown, request_id: requestId }, 'unhandled error');
      const format = responseFormat(ctx);
      ctx.status = error.status;
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      if (format === 'json') {
        ctx.body = { error: error.code, error_description: error.message };
      } else {
        ctx.type = 'html';
        ctx.body = messagePage(errorTitle(error), error.message, { code: error.code, requestId, way: error.way ?? DEFAULT_WAYS[error.code] });
      }
    }
  };
}
