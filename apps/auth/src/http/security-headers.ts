/**
 * Rules for every response of the authorization server, error pages included (set in `finally`
 * by @gatehouse/http, mounted outside the error handler in app.ts):
 * - a strict CSP: same-origin assets only, no inline script, no framing, no plugins;
 * - form-action also allows the origins a page is about to redirect to (Chromium applies
 *   form-action to the redirect that follows a form post), set per request in ctx.state.formActionOrigins;
 * - no inline script anywhere: oidc-provider's auto-submitting pages (the form_post response mode,
 *   a logout without a session) are replaced by a page whose same-origin script submits the form
 *   (oidc/form-post.ts), which puts the form's target origin in ctx.state.formActionOrigins;
 * - img-src also allows the origin of the client logo a page shows (the login, second-factor and
 *   consent pages), set per request in ctx.state.imgSrcOrigins; every other response keeps images
 *   same-origin (and data:). Never any https image: only the registered logo's origin, on the page
 *   that shows it (a logo is registered by an operator, authctl or the admin API);
 * - no MIME sniffing, no referrer leaks of codes, no caching of pages carrying secrets.
 */
import { isHtmlResponse, securityHeaders } from '@gatehouse/http';
import type { AuthContext, AuthState } from './state.ts';

const policy = (formAction: string, scriptSrc: string, imgSrc = "'self' data:"): string =>
  `default-src 'none'; script-src ${scriptSrc}; style-src 'self'; img-src ${imgSrc}; connect-src 'self'; manifest-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
/** The policy of nearly every answer (no redirect origin to allow). */
const SAME_ORIGIN_POLICY = policy("'self'", "'self'");

export function authContentSecurityPolicy(ctx: AuthContext): string {
  const { formActionOrigins = [], imgSrcOrigins = [] } = ctx.state;
  if (!formActionOrigins.length && !imgSrcOrigins.length) return SAME_ORIGIN_POLICY;
  return policy(["'self'", ...formActionOrigins].join(' '), "'self'", ["'self'", 'data:', ...imgSrcOrigins].join(' '));
}

export const authSecurityHeaders = securityHeaders<AuthState>({ csp: authContentSecurityPolicy, noStore: isHtmlResponse });
