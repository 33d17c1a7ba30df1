/**
 * Puts the verified-token cache in front of a verifier. Rules:
 * - a cached success is used only inside its validity window (see verified-token-cache.ts);
 * - concurrent first requests with the same token share one check;
 * - failures are never cached;
 * - the token68 syntax is checked on a miss only (a cached token passed it).
 */
import { assertToken68 } from './bearer.ts';
import type { Principal, TokenVerifier } from './principal.ts';
import type { VerifiedTokenCache } from './verified-token-cache.ts';

export interface Authenticator {
  authenticate(token: string): Promise<Principal> | Principal;
  ready(): Promise<boolean>;
}

export function createAuthenticator(options: { verifier: TokenVerifier; cache: VerifiedTokenCache; clock: () => number; realm: string }): Authenticator {
  const inFlight = new Map<string, Promise<Principal>>();
  return {
    authenticate(token) {
      const cached = options.cache.get(token, options.clock());
      if (cached) return cached.principal;
      let pending = inFlight.get(token);
      if (!pending) {
        assertToken68(token, options.realm);
        pending = options.verifier
          .verify(token)
          .then((verified) => {
            options.cache.set(token, verified);
            return verified.principal;
          })
          .finally(() => inFlight.delete(token));
        inFlight.set(token, pending);
      }
      return pending;
    },
    ready: () => options.verifier.ready(),
  };
}
