/**
 * Answers for requests no route handled, in the contract's error shape (docs/spec.md §7) instead
 * of Koa's and @koa/router's bare text bodies. Rules:
 * - a path nothing serves is 404 `not_found`;
 * - a method a served path does not offer is 405 `method_not_allowed` with `Allow` (the router's);
 * - an unknown method (PROPFIND, TRACE, ...) is treated the same way: 405 on a served path, 404
 *   elsewhere; never @koa/router's 501, since a request the server refuses is never a 5xx;
 * - under /oauth2/ the body is RFC 6749 JSON, as for every OAuth endpoint; elsewhere the error
 *   handler's one rule (responseFormat) picks JSON or the HTML error page.
 * Mounted inside the error handler (app.ts), which renders the thrown AuthError.
 */
import type { Context, Next } from 'koa';
import { AuthError } from '../errors/auth-error.ts';

export async function unroutedAnswers(ctx: Context, next: Next): Promise<void> {
  await next();
  if (ctx.body != null || ctx.respond === false) return;
  const status = ctx.status;
  if (status !== 404 && status !== 405 && status !== 501) return;
  const allow = status === 404 ? '' : ctx.response.get('Allow');
  if (ctx.path.startsWith('/oauth2/')) ctx.type = 'application/json';
  if (!allow) {
    ctx.remove('Allow');
    throw new AuthError(404, 'not_found', 'There is nothing at this address.');
  }
  throw new AuthError(405, 'method_not_allowed', `${ctx.method} is not allowed here; use ${allow}.`, { headers: { Allow: allow } });
}
