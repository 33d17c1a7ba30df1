/**
 * Remembers tokens that passed a full check, so that the next request with the same token
 * skips the signature check or the introspection call. Rules:
 * - only successes are stored; a refused token is checked afresh every time;
 * - an entry is used only while the current clock lies inside the window a fresh check would
 *   accept (nbf − leeway ≤ now < exp + leeway, and the introspection cap); outside it the entry is dropped;
 * - the cache is bounded; eviction is CLOCK (second chance), an approximation of LRU: an entry
 *   used since it was last considered is spared once, an unused one goes. A hit only sets a
 *   flag, so the hot path does not reorder the map;
 * - entries signed by a key that left the JWKS are dropped ({@link VerifiedTokenCache.dropKeysExcept});
 * - scope is not decided here: the caller checks the scope of every request against the principal;
 * - entries are found by the token's last {@link KEY_CHARS} characters (a JWT's signature) and
 *   used only when the whole token is the same: a token arrives as a new string with every
 *   request, and hashing all of it for the lookup costs more than the rest of the check
 *   (bench/README.md, "API read"). Two tokens with the same ending share a slot: the one
 *   checked last holds it, the other is checked afresh.
 */
import type { VerifiedToken } from './principal.ts';

export interface VerifiedTokenCache {
  get(token: string, now: number): VerifiedToken | undefined;
  set(token: string, verified: VerifiedToken): void;
  /** Forgets one token (revoked). */
  delete(token: string): void;
  /** Drops every entry signed by a key whose id is not in `kids`. */
  dropKeysExcept(kids: ReadonlySet<string>): void;
  readonly size: number;
}

interface Slot {
  readonly token: string;
  readonly verified: VerifiedToken;
  referenced: boolean;
}

/** How much of the end of a token finds its entry. */
const KEY_CHARS = 64;
const keyOf = (token: string): string => (token.length > KEY_CHARS ? token.slice(-KEY_CHARS) : token);

export function createVerifiedTokenCache(maxEntries: number): VerifiedTokenCache {
  // A Map iterates in insertion order: its first key is where the clock hand points.
  const entries = new Map<string, Slot>();
  return {
    get(token, now) {
      const key = keyOf(token);
      const slot = entries.get(key);
      if (slot === undefined || slot.token !== token) return undefined;
      if (now >= slot.verified.validUntil || now < slot.verified.validFrom) {
        entries.delete(key);
        return undefined;
      }
      slot.referenced = true;
      return slot.verified;
    },
    set(token, verified) {
      const key = keyOf(token);
      entries.delete(key);
      // Make room first, so the newcomer is not the one the hand reaches.
      while (entries.size >= maxEntries) {
        const [oldest, slot] = entries.entries().next().value!;
        entries.delete(oldest);
        if (slot.referenced) entries.set(oldest, { token: slot.token, verified: slot.verified, referenced: false });
      }
      entries.set(key, { token, verified, referenced: false });
    },
    delete(token) {
      const key = keyOf(token);
      if (entries.get(key)?.token === token) entries.delete(key);
    },
    dropKeysExcept(kids) {
      for (const [key, slot] of entries) if (slot.verified.kid !== undefined && !kids.has(slot.verified.kid)) entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
