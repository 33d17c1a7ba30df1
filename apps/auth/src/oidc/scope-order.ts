/**
 * The order of scopes as the client asked for them. oidc-provider stores an authorization
 * code's scope OpenID scopes first, in the grant's order, then the resource scopes; the token
 * response must list them in the order of the request (token-response.ts). The adapter
 * reorders a code's scope with this before it is stored, using the request being served
 * (oidc-provider's `Provider.ctx`), and refresh tokens inherit the code's order.
 */
import { Provider } from 'oidc-provider';

/** `granted`, reordered to follow `requested`; scopes not in `requested` keep their place after them. */
export function orderAsRequested(granted: string, requested: string | undefined): string {
  if (!requested) return granted;
  const grantedList = granted.split(' ').filter(Boolean);
  const set = new Set(grantedList);
  const ordered = [...new Set(requested.split(' '))].filter((s) => set.has(s));
  for (const s of grantedList) if (!ordered.includes(s)) ordered.push(s);
  return ordered.join(' ');
}

/** The `scope` parameter of the authorization request being served, if any. */
export function currentRequestScope(): string | undefined {
  const scope = (Provider.ctx as { oidc?: { params?: { scope?: unknown } } } | undefined)?.oidc?.params?.scope;
  return typeof scope === 'string' ? scope : undefined;
}
