/**
 * The API's deny-list of revoked JWT access tokens, filled from the authorization server's
 * revocation feed (revocation-feed.ts). Rules:
 * - a token is revoked when its `jti` was revoked, its grant (`grant_id`) was revoked, or its
 *   subject was cut off for tokens issued before a time (`account-disabled`);
 * - each entry is kept until its `exp` (when every token it concerns has expired), then pruned;
 * - the list is bounded: when full, the entry that expires first is dropped and counted in
 *   `evicted`, so memory stays flat under a revocation storm (sized well above the number of
 *   revocations expected within one access-token lifetime);
 * - lookups are three Map reads, so the check runs on every request, cache hits included.
 */
import type { RevocationEvent } from '@gatehouse/contracts';

export interface RevocationKeys {
  readonly jti?: string | undefined;
  readonly grantId?: string | undefined;
  readonly sub?: string | undefined;
  /** Issued-at, epoch seconds. */
  readonly iat?: number | undefined;
}

export interface RevocationList {
  apply(event: RevocationEvent): void;
  isRevoked(keys: RevocationKeys, nowMs: number): boolean;
  /** Drops entries whose tokens have all expired. */
  prune(nowMs: number): void;
  readonly size: number;
  /** Unexpired entries dropped because the list was full. */
  readonly evicted: number;
}

interface SubjectCut {
  issuedBefore: number;
  exp: number;
}

export function createRevocationList(maxEntries: number): RevocationList {
  const byJti = new Map<string, number>();
  const byGrant = new Map<string, number>();
  const bySubject = new Map<string, SubjectCut>();
  let evicted = 0;
  const size = () => byJti.size + byGrant.size + bySubject.size;

  const expiryOf = (value: number | SubjectCut) => (typeof value === 'number' ? value : value.exp);
  function evictOne(): void {
    let victim: { map: Map<string, number | SubjectCut>; key: string; exp: number } | undefined;
    for (const map of [byJti, byGrant, bySubject] as Map<string, number | SubjectCut>[]) {
      for (const [key, value] of map) {
        const exp = expiryOf(value);
        if (!victim || exp < victim.exp) victim = { map, key, exp };
      }
    }
    if (victim) {
      victim.map.delete(victim.key);
      evicted += 1;
    }
  }

  return {
    apply(event) {
      const isNew =
        (event.type === 'token-revoked' && !byJti.has(event.jti)) ||
        (event.type === 'session-revoked' && !byGrant.has(event.grant_id)) ||
        (event.type === 'account-disabled' && !bySubject.has(event.sub));
      if (isNew && size() >= maxEntries) evictOne();
      if (event.type === 'token-revoked') byJti.set(event.jti, event.exp);
      else if (event.type === 'session-revoked') byGrant.set(event.grant_id, Math.max(event.exp, byGrant.get(event.grant_id) ?? 0));
      else {
        const previous = bySubject.get(event.sub);
        bySubject.set(event.sub, {
          issuedBefore: Math.max(event.issued_before, previous?.issuedBefore ?? 0),
          exp: Math.max(event.exp, previous?.exp ?? 0),
        });
      }
    },
    isRevoked(keys, nowMs) {
      const now = nowMs / 1000;
      if (keys.jti !== undefined) {
        const exp = byJti.get(keys.jti);
        if (exp !== undefined && exp > now) return true;
      }
      if (keys.grantId !== undefined) {
        const exp = byGrant.get(keys.grantId);
        if (exp !== undefined && exp > now) return true;
      }
      if (keys.sub !== undefined && keys.iat !== undefined) {
        const cut = bySubject.get(keys.sub);
        if (cut !== undefined && cut.exp > now && keys.iat < cut.issuedBefore) return true;
      }
      return false;
    },
    prune(nowMs) {
      const now = nowMs / 1000;
      for (const [key, exp] of byJti) if (exp <= now) byJti.delete(key);
      for (const [key, exp] of byGrant) if (exp <= now) byGrant.delete(key);
      for (const [key, cut] of bySubject) if (cut.exp <= now) bySubject.delete(key);
    },
    get size() {
      return size();
    },
    get evicted() {
      return evicted;
    },
  };
}
