/**
 * How oidc-provider fetches a private_key_jwt client's `jwks_uri`. Rules:
 * - oidc-provider's guard refuses to connect to special-use addresses (private ranges, loopback):
 *   a registered jwks_uri that resolves to one is not fetched, and the client is refused;
 * - a jwks_uri on a loopback host (localhost, 127.0.0.1: what client-store.ts accepts over http, for
 *   development, as it does redirect URIs) is fetched without that guard: an operator registered
 *   it, and no client can register one itself;
 * - every fetch goes through the injected `fetch`.
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1']);

export function clientKeysFetch(fetchImpl: typeof fetch): typeof fetch {
  return (input, init) => {
    const url = input instanceof Request ? input.url : input;
    if (!init || !LOOPBACK_HOSTS.has(new URL(url).hostname)) return fetchImpl(input, init);
    // oidc-provider passes its guard as undici's `dispatcher` option.
    const { dispatcher: _guard, ...unguarded } = init as RequestInit & { dispatcher?: unknown };
    return fetchImpl(input, unguarded);
  };
}
