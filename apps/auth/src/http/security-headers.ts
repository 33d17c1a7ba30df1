/**
 * Rules for every response of the authorization server, error pages included (set in `finally`
 * by @gatehouse/http, mounted outside the error handler in app.ts):
 * - a strict CSP: same-origin assets only, no inline script, no framing, no plugins;
 * - form-action also allows the origins a page is about to redirect to (Chromium applies
 *   form-action to the redirect that follows a form post), set per request in ctx.state.formActionOrigins;
 * - no MIME sniffing, no referrer leaks of codes, no caching of pages carrying secrets.
 */
import { isHtmlResponse, securityHeaders } from '@gatehouse/http';
import type { AuthContext, AuthState } from './state.ts';

export function authContentSecurityPolicy(ctx: AuthContext): string {
  const formAction = ["'self'", ...(ctx.state.formActionOrigins ?? [])].join(' ');
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
}

export const authSecurityHeaders = securityHeaders<AuthState>({ csp: authContentSecurityPolicy, noStore: isHtmlResponse });
