/**
 * The relying party's error handler, inside the shared request id, access log and security
 * headers (@gatehouse/http; order in app.ts). Every answer here is an HTML message page (the
 * relying party serves browsers only):
 * - an exposed ClientError (or a Koa HTTP error under 500) becomes its status;
 * - a method the router does not serve on a path it knows is 405 with `Allow` (the router's
 *   answer), whatever the method, invented ones included (never 501); on a path it does not
 *   know, 404;
 * - an unreachable database a 503 page with Retry-After;
 * - anything else a generic 500 `server_error` page with the request id, the stack in the log only.
 */
import type { Next } from 'koa';
import { isDatabaseUnavailable } from '@gatehouse/db';
import { authServerUnavailable, ClientError, databaseUnavailable } from '../errors/client-error.ts';
import type { Logger } from '../logging/logger.ts';
import { pageLanguage } from '../i18n/page-language.ts';
import { messagePage } from '../views/message-page.ts';
import type { ClientContext } from './state.ts';

function asClientError(thrown: unknown): ClientError {
  if (thrown instanceof ClientError && thrown.expose) return thrown;
  // ServerUnreachable of the relying party (discovery, token endpoint down).
  if ((thrown as { code?: unknown }).code === 'authorization_server_unavailable') return authServerUnavailable(thrown);
  if (isDatabaseUnavailable(thrown)) return databaseUnavailable(thrown);
  const status = (thrown as { status?: unknown }).status;
  if (!(thrown instanceof ClientError) && typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 404) return new ClientError(404, 'not_found', 'Not found', 'There is no page at this address.');
    if (status === 405) return new ClientError(405, 'method_not_allowed', 'Method not allowed', 'This page does not accept that method.');
    return new ClientError(status, 'invalid_request', 'Request refused', 'The request could not be understood.');
  }
  return new ClientError(500, 'server_error', 'Something went wrong', 'Something went wrong on our side. Try again later.', { cause: thrown });
}

export function errorHandler(logger: Logger, appName: string) {
  return async function handleErrors(ctx: ClientContext, next: Next): Promise<void> {
    const requestId = ctx.state.requestId;
    try {
      await next();
      // The router's allowedMethods leaves 405 (or 501 for a method no route has) with `Allow` and no body.
      if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
        if (ctx.response.get('Allow')) throw new ClientError(405, 'method_not_allowed', 'Method not allowed', 'This page does not accept that method.');
        ctx.remove('Allow');
        ctx.status = 404;
      }
      if (ctx.status === 404 && ctx.body === undefined) throw new ClientError(404, 'not_found', 'Not found', 'There is no page at this address.');
    } catch (thrown) {
      const error = asClientError(thrown);
      // `error_code`, not `code`: the redaction list removes `code` (authorization codes).
      if (error.status >= 500 && error.code !== 'server_error') logger.warn({ event: 'upstream.failure', err: thrown, request_id: requestId, error_code: error.code }, 'upstream failure');
      else if (error.status >= 500) logger.error({ event: 'http.unhandled_error', err: thrown, request_id: requestId }, 'request failed');
      else logger.debug({ request_id: requestId, error_code: error.code, reason: thrown instanceof Error ? thrown.message : undefined }, 'request refused');
      ctx.status = error.status;
      if (error.code === 'database_unavailable') ctx.set('Retry-After', '5');
      const language = pageLanguage(ctx);
      const { title, message } = language.errorTexts(error);
      ctx.type = 'html';
      ctx.body = messagePage({
        appName,
        title,
        message,
        code: error.code,
        requestId,
        action: { href: '/', label: language.t('message.backToApp') },
        language,
      });
    }
  };
}
