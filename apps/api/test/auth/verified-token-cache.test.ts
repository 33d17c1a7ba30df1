import { describe, expect, it } from 'vitest';
import { createVerifiedTokenCache } from '../../src/auth/verified-token-cache.ts';
import type { VerifiedToken } from '../../src/auth/principal.ts';

const entry = (validUntil: number, kid?: string, validFrom = 0): VerifiedToken => ({
  principal: { subject: 's', clientId: 'c', scopes: new Set(['movies:read']), groups: [] },
  validUntil,
  validFrom,
  kid,
});

describe('verified-token cache', () => {
  it('returns an entry only inside its validity window', () => {
    const cache = createVerifiedTokenCache(10);
    cache.set('a', entry(2_000, undefined, 1_000));
    expect(cache.get('a', 999)).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.set('a', entry(2_000, undefined, 1_000));
    expect(cache.get('a', 1_000)?.validUntil).toBe(2_000);
    expect(cache.get('a', 1_999)?.validUntil).toBe(2_000);
    expect(cache.get('a', 2_000)).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.get('missing', 0)).toBeUndefined();
  });

  it('answers only for the very token stored, also among long tokens with the same ending', () => {
    const cache = createVerifiedTokenCache(10);
    const ending = '.' + 's'.repeat(100);
    const first = 'header.first-payload' + ending;
    const second = 'header.other-payload' + ending;
    cache.set(first, entry(10, 'k1'));
    expect(cache.get(first, 0)?.kid).toBe('k1');
    // A token that differs anywhere is not this entry's, and deleting it leaves the entry alone.
    expect(cache.get(second, 0)).toBeUndefined();
    expect(cache.get(first.slice(1), 0)).toBeUndefined();
    cache.delete(second);
    expect(cache.get(first, 0)?.kid).toBe('k1');
    // The last one checked holds the slot; the other is checked afresh.
    cache.set(second, entry(10, 'k2'));
    expect(cache.get(second, 0)?.kid).toBe('k2');
    expect(cache.get(first, 0)).toBeUndefined();
    cache.delete(second);
    expect(cache.get(second, 0)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('holds at most its bound, sparing recently used entries once', () => {
    const cache = createVerifiedTokenCache(2);
    cache.set('a', entry(10));
    cache.set('b', entry(10));
    expect(cache.get('a', 0)).toBeDefined();
    cache.set('c', entry(10));
    expect(cache.size).toBe(2);
    expect(cache.get('b', 0)).toBeUndefined();
    expect(cache.get('a', 0)).toBeDefined();
    expect(cache.get('c', 0)).toBeDefined();
    // Both were used since: the hand spares a, then c, and comes back to a.
    cache.set('d', entry(10));
    expect(cache.size).toBe(2);
    expect(cache.get('a', 0)).toBeUndefined();
    expect(cache.get('c', 0)).toBeDefined();
    expect(cache.get('d', 0)).toBeDefined();
  });

  it('stays bounded under many distinct tokens', () => {
    const cache = createVerifiedTokenCache(100);
    for (let i = 0; i < 1_000; i++) {
      cache.set(`t${i}`, entry(10));
      if (i % 3 === 0) cache.get(`t${i}`, 0);
    }
    expect(cache.size).toBe(100);
    expect(cache.get('t999', 0)).toBeDefined();
  });

  it('drops entries whose signing key left the set', () => {
    const cache = createVerifiedTokenCache(10);
    cache.set('a', entry(10, 'k1'));
    cache.set('b', entry(10, 'k2'));
    cache.set('c', entry(10));
    cache.dropKeysExcept(new Set(['k2']));
    expect(cache.get('a', 0)).toBeUndefined();
    expect(cache.get('b', 0)).toBeDefined();
    expect(cache.get('c', 0)).toBeDefined();
  });
});
