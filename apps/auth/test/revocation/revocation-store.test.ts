import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createRevocationStore } from '../../src/revocation/revocation-store.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const T0 = 1_790_000_000_000;

describe.each(TEST_ENGINES)('revocation store on %s', (engine) => {
  const database = useAuthDatabase(engine);

  it('matches a token by jti, by grant, and by subject only when issued before the cut-off', async () => {
    let now = T0;
    const store = createRevocationStore(database.db, () => now, 1000);
    await store.revokeToken('jti-1', T0 + 60_000);
    await store.revokeGrant('grant-1', T0 + 60_000);
    await store.revokeSubject('user-1', T0, T0 + 60_000);

    expect(await store.isRevoked({ jti: 'jti-1' })).toBe(true);
    expect(await store.isRevoked({ jti: 'jti-2' })).toBe(false);
    expect(await store.isRevoked({ jti: 'jti-2', grantId: 'grant-1' })).toBe(true);
    expect(await store.isRevoked({ jti: 'jti-2', grantId: 'grant-2' })).toBe(false);
    expect(await store.isRevoked({ sub: 'user-1', iat: T0 / 1000 - 1 })).toBe(true);
    expect(await store.isRevoked({ sub: 'user-1', iat: T0 / 1000 })).toBe(false);
    expect(await store.isRevoked({ sub: 'user-2', iat: T0 / 1000 - 1 })).toBe(false);
    expect(await store.isRevoked({})).toBe(false);

    now = T0 + 60_000;
    expect(await store.isRevoked({ jti: 'jti-1' })).toBe(false);
    expect(await store.purgeExpired()).toBe(3);
  });

  it('serves the feed in id order, only once entries have settled', async () => {
    let now = T0;
    const store = createRevocationStore(database.db, () => now, 1000);
    await store.revokeSubject('user-9', T0, T0 + 60_000);
    await store.revokeToken('jti-9', T0 + 90_000);
    expect(await store.since(0, 10)).toEqual([]);
    now = T0 + 1000;
    const events = await store.since(0, 10);
    expect(events.map(({ id: _id, ...rest }) => rest)).toEqual([
      { type: 'account-disabled', sub: 'user-9', issued_before: T0 / 1000, exp: (T0 + 60_000) / 1000 },
      { type: 'token-revoked', jti: 'jti-9', exp: (T0 + 90_000) / 1000 },
    ]);
    expect(events[0]!.id).toBeLessThan(events[1]!.id);
    expect(await store.since(events[0]!.id, 10)).toEqual([events[1]]);
    expect(await store.since(events[1]!.id, 10)).toEqual([]);
    expect(await store.since(0, 1)).toEqual([events[0]]);
  });
});
