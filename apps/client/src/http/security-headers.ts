import type { Context, Next } from 'koa';

/**
 * Rules for every response of the relying party:
 * - a strict CSP: the same-origin stylesheet only, no script at all, no framing, no plugins;
 * - form-action also allows the authorization server's origin: the sign-out form (and a form whose
 *   session ended) answers with a redirect there, and Chromium applies form-action to that redirect;
 * - no MIME sniffing, no referrer (the callback URL carries a code), no caching of pages.
 */
export function securityHeaders(authOrigin: string) {
  const csp = `default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self' ${authOrigin}; frame-ancestors 'none'; base-uri 'none'`;
  return async function setSecurityHeaders(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } finally {
      ctx.set('Content-Security-Policy', csp);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('X-Frame-Options', 'DENY');
      if (!ctx.path.startsWith('/static/')) ctx.set('Cache-Control', 'no-store');
    }
  };
}
