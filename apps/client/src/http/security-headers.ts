/**
 * Rules for every response of the relying party, error pages included (set in `finally` by
 * @gatehouse/http, mounted outside the error handler in app.ts):
 * - a strict CSP: the same-origin stylesheet only, no script at all, no framing, no plugins;
 * - form-action also allows the authorization server's origin: the sign-out form (and a form whose
 *   session ended) answers with a redirect there, and Chromium applies form-action to that redirect;
 * - no MIME sniffing, no referrer (the callback URL carries a code), no caching of pages.
 */
import { securityHeaders } from '@gatehouse/http';
import type { ClientContext, ClientState } from './state.ts';

export function clientSecurityHeaders(authOrigin: string) {
  return securityHeaders<ClientState>({
    csp: `default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self' ${authOrigin}; frame-ancestors 'none'; base-uri 'none'`,
    noStore: (ctx: ClientContext) => !ctx.path.startsWith('/static/'),
  });
}
