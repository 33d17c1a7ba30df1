import { describe, expect, it } from 'vitest';
import { createRevocationList } from '../../src/auth/revocation-list.ts';

const NOW = 1_790_000_000_000;
const S = NOW / 1000;

describe('revocation list', () => {
  it('names a token by jti, grant, or subject issued before the cut-off, until the entry expires', () => {
    const list = createRevocationList(100);
    list.apply({ id: 1, type: 'token-revoked', jti: 'j1', exp: S + 60 });
    list.apply({ id: 2, type: 'session-revoked', grant_id: 'g1', exp: S + 60 });
    list.apply({ id: 3, type: 'account-disabled', sub: 'u1', issued_before: S, exp: S + 60 });
    expect(list.isRevoked({ jti: 'j1' }, NOW)).toBe(true);
    expect(list.isRevoked({ jti: 'j2', grantId: 'g1' }, NOW)).toBe(true);
    expect(list.isRevoked({ jti: 'j2', grantId: 'g2', sub: 'u1', iat: S - 1 }, NOW)).toBe(true);
    expect(list.isRevoked({ jti: 'j2', grantId: 'g2', sub: 'u1', iat: S }, NOW)).toBe(false);
    expect(list.isRevoked({ sub: 'u1' }, NOW)).toBe(false);
    expect(list.isRevoked({ jti: 'j1' }, NOW + 60_000)).toBe(false);
    expect(list.size).toBe(3);
    list.prune(NOW + 60_000);
    expect(list.size).toBe(0);
  });

  it('stays within its bound by dropping the entry that expires first, and counts it', () => {
    const list = createRevocationList(2);
    list.apply({ id: 1, type: 'token-revoked', jti: 'late', exp: S + 600 });
    list.apply({ id: 2, type: 'token-revoked', jti: 'soon', exp: S + 60 });
    list.apply({ id: 3, type: 'session-revoked', grant_id: 'g', exp: S + 300 });
    expect(list.size).toBe(2);
    expect(list.evicted).toBe(1);
    expect(list.isRevoked({ jti: 'soon' }, NOW)).toBe(false);
    expect(list.isRevoked({ jti: 'late' }, NOW)).toBe(true);
    expect(list.isRevoked({ grantId: 'g' }, NOW)).toBe(true);
    // Re-applying a known entry does not evict anything.
    list.apply({ id: 4, type: 'token-revoked', jti: 'late', exp: S + 600 });
    expect(list.evicted).toBe(1);
  });
});
