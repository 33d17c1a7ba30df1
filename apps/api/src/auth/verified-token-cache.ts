/**
 * Remembers tokens that passed a full check, so that the next request with the same token
 * skips the signature check or the introspection call. Rules:
 * - only successes are stored; a refused token is checked afresh every time;
 * - an entry is used only while the current clock lies inside the window a fresh check would
 *   accept (nbf − leeway ≤ now < exp + leeway, and the introspection cap); outside it the entry is dropped;
 * - the cache is bounded: the least recently used entry goes first;
 * - entries signed by a key that left the JWKS are dropped ({@link VerifiedTokenCache.dropKeysExcept});
 * - scope is not decided here: the caller checks the scope of every request against the principal.
 */
import type { VerifiedToken } from './principal.ts';

export interface VerifiedTokenCache {
  get(token: string, now: number): VerifiedToken | undefined;
  set(token: string, verified: VerifiedToken): void;
  /** Drops every entry signed by a key whose id is not in `kids`. */
  dropKeysExcept(kids: ReadonlySet<string>): void;
  readonly size: number;
}

export function createVerifiedTokenCache(maxEntries: number): VerifiedTokenCache {
  // A Map iterates in insertion order, so re-inserting on every hit makes its first key the least recently used.
  const entries = new Map<string, VerifiedToken>();
  return {
    get(token, now) {
      const entry = entries.get(token);
      if (entry === undefined) return undefined;
      entries.delete(token);
      if (now >= entry.validUntil || now < entry.validFrom) return undefined;
      entries.set(token, entry);
      return entry;
    },
    set(token, verified) {
      entries.delete(token);
      entries.set(token, verified);
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
    },
    dropKeysExcept(kids) {
      for (const [token, entry] of entries) if (entry.kid !== undefined && !kids.has(entry.kid)) entries.delete(token);
    },
    get size() {
      return entries.size;
    },
  };
}
