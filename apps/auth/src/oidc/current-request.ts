/**
 * The request oidc-provider is serving, from its async context (`Provider.ctx`): set inside its
 * own endpoints (token, authorization, introspection, ...), undefined anywhere else (our own
 * routes, the admin API, the CLI, timers started outside a request).
 */
import { Provider } from 'oidc-provider';

export function currentOidcRequest(): object | undefined {
  return Provider.ctx as object | undefined;
}

/** The refresh token presented by the token request being served, when it is a refresh (grant_type refresh_token). */
export function currentRefreshTokenParam(): string | undefined {
  const params = (Provider.ctx as { oidc?: { route?: unknown; params?: { grant_type?: unknown; refresh_token?: unknown } } } | undefined)?.oidc;
  if (params?.route !== 'token' || params.params?.grant_type !== 'refresh_token') return undefined;
  const token = params.params.refresh_token;
  return typeof token === 'string' && token.length > 0 ? token : undefined;
}
