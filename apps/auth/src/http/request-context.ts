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
import { AuthError, type WayOn } from '../errors/auth-error.ts';
import type { Logger } from '../logging/logger.ts';
import { pageLanguage, type PageLanguage } from '../i18n/page-language.ts';
import { messagePage } from '../views/message-page.ts';
import type { AuthContext } from './state.ts';

const databaseUnavailable = (cause: unknown) =>
  new AuthError(503, 'temporarily_unavailable', 'The service cannot reach its database right now. Try again in a moment.', {
    headers: { 'Retry-After': '5' },
    cause,
  });

/** The human heading of an error page, in the page's language. */
function errorTitle(error: AuthError, language: PageLanguage): string {
  if (error.status === 503) return language.t('errorPage.unavailable');
  if (error.status >= 500) return language.t('errorPage.serverError');
  if (error.code === 'not_found') return language.t('errorPage.notFound');
  if (error.code === 'interaction_expired') return language.t('errorPage.expired');
  if (error.code === 'sign_out_expired') return language.t('errorPage.signOutExpired');
  if (error.status === 429) return language.t('errorPage.tooMany');
  return language.t('errorPage.refused');
}

/** Where an error page leads when the error names no way of its own: every page offers one. */
const ACCOUNT_WAY: WayOn = { label: 'Go to your account', href: '/account', says: { way: 'account' } };
const DEFAULT_WAYS: Partial<Record<string, WayOn>> = {
  not_found: ACCOUNT_WAY,
  method_not_allowed: ACCOUNT_WAY,
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
        const language = pageLanguage(ctx);
        ctx.type = 'html';
        ctx.body = messagePage(errorTitle(error, language), language.errorText(error), { code: error.code, requestId, way: error.way ?? DEFAULT_WAYS[error.code], language });
      }
    }
  };
}
