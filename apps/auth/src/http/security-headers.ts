import type { Context, Next } from 'koa';

/**
 * Rules for every response of the authorization server:
 * - a strict CSP: same-origin assets only, no inline script, no framing, no plugins;
 * - form-action also allows the origins a page is about to redirect to (Chromium applies
 *   form-action to the redirect that follows a form post), set per request in ctx.state.formActionOrigins;
 * - no MIME sniffing, no referrer leaks of codes, no caching of pages carrying secrets.
 */
export async function securityHeaders(ctx: Context, next: Next): Promise<void> {
  await next();
  const formAction = ["'self'", ...((ctx.state.formActionOrigins as string[] | undefined) ?? [])].join(' ');
  ctx.set(
    'Content-Security-Policy',
    `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  if (ctx.type === 'text/html' || ctx.response.is('html')) ctx.set('Cache-Control', 'no-store');
}
