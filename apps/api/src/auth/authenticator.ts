/**
 * Puts the verified-token cache in front of a verifier, and the revocation deny-list in front
 * of both. Rules:
 * - a cached success is used only inside its validity window (see verified-token-cache.ts);
 * - concurrent first requests with the same token share one check;
 * - failures are never cached;
 * - the token68 syntax is checked on a miss only (a cached token passed it);
 * - with a revocation feed (revocation-feed.ts), every request, cache hits included, is refused
 *   when the deny-list names the token (jti, grant or subject); the cached entry is dropped;
 * - while the feed is stale (down longer than its setting), a JWT's revocation status is
 *   unknown: it is asked of introspection (`fallback`), and an active answer is trusted for
 *   `recheckMs`. An authorization server that cannot answer then means 503, never a silent pass;
 * - a DPoP-bound token is never admitted by {@link Authenticator.authenticateCached}: its proof
 *   must be checked with every request (dpop-binding.ts), which the pre-routed read does not do.
 */
import { assertToken68 } from './bearer.ts';
import { invalidToken } from './challenges.ts';
import type { Principal, TokenVerifier, VerifiedToken } from './principal.ts';
import type { RevocationFeed } from './revocation-feed.ts';
import type { RevocationList } from './revocation-list.ts';
import type { VerifiedTokenCache } from './verified-token-cache.ts';

export interface Authenticator {
  authenticate(token: string): Promise<Principal> | Principal;
  /**
   * What can be decided at once, without a network call: the principal of a bearer token (not
   * DPoP-bound) in the verified cache that the deny-list does not name and that needs no
   * introspection recheck; otherwise
   * undefined, and {@link authenticate} decides (with its refusals). Never an error.
   */
  authenticateCached(token: string): Principal | undefined;
  ready(): Promise<boolean>;
}

export interface RevocationCheck {
  list: RevocationList;
  feed: Pick<RevocationFeed, 'isFresh'>;
  /** Asked while the feed is stale; absent when the verifier is introspection already. */
  fallback?: TokenVerifier;
  /** How long an active introspection answer is trusted while the feed is stale, ms. */
  recheckMs: number;
}

export function createAuthenticator(options: {
  verifier: TokenVerifier;
  cache: VerifiedTokenCache;
  clock: () => number;
  realm: string;
  revocation?: RevocationCheck;
}): Authenticator {
  const inFlight = new Map<string, Promise<Principal>>();
  const rechecks = new Map<string, Promise<void>>();
  const confirmedAt = new Map<string, number>();
  const { revocation } = options;

  function confirm(token: string, now: number): Promise<void> {
    let pending = rechecks.get(token);
    if (!pending) {
      pending = revocation!
        .fallback!.verify(token)
        .then(() => {
          if (confirmedAt.size >= 10_000) confirmedAt.clear();
          confirmedAt.set(token, now);
        })
        .catch((error: unknown) => {
          options.cache.delete(token);
          throw error;
        })
        .finally(() => rechecks.delete(token));
      rechecks.set(token, pending);
    }
    return pending;
  }

  /** The revocation side of a verified token: admitted, revoked, or to be confirmed by introspection. */
  function revocationStatus(token: string, verified: VerifiedToken, now: number): 'admitted' | 'revoked' | 'recheck' {
    if (!revocation) return 'admitted';
    if (verified.revocation && revocation.list.isRevoked(verified.revocation, now)) return 'revoked';
    if (!revocation.fallback || revocation.feed.isFresh(now)) return 'admitted';
    const checked = confirmedAt.get(token);
    return checked !== undefined && now - checked < revocation.recheckMs ? 'admitted' : 'recheck';
  }

  function admit(token: string, verified: VerifiedToken): Promise<Principal> | Principal {
    const now = options.clock();
    switch (revocationStatus(token, verified, now)) {
      case 'admitted':
        return verified.principal;
      case 'revoked':
        options.cache.delete(token);
        throw invalidToken(options.realm, 'the access token has been revoked');
      case 'recheck':
        return confirm(token, now).then(() => verified.principal);
    }
  }

  return {
    authenticate(token) {
      const cached = options.cache.get(token, options.clock());
      if (cached) return admit(token, cached);
      let pending = inFlight.get(token);
      if (!pending) {
        assertToken68(token, options.realm);
        pending = options.verifier
          .verify(token)
          .then((verified) => {
            options.cache.set(token, verified);
            return admit(token, verified);
          })
          .finally(() => inFlight.delete(token));
        inFlight.set(token, pending);
      }
      return pending;
    },
    authenticateCached(token) {
      const now = options.clock();
      const cached = options.cache.get(token, now);
      return cached && cached.principal.jkt === undefined && revocationStatus(token, cached, now) === 'admitted' ? cached.principal : undefined;
    },
    ready: () => options.verifier.ready(),
  };
}
