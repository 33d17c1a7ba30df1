/**
 * The consent record (consent/consent-store.ts) on SQLite and PostgreSQL: created by the first
 * allow, grown by later ones (nothing granted is lost, nothing repeated), listed per account
 * newest first, and deleted by revoke.
 */
import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createConsentStore } from '../../src/consent/consent-store.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

describe.each(TEST_ENGINES)('consent store on %s', (engine) => {
  const database = useAuthDatabase(engine);

  it('allow creates the record, later allows add to it, and it keeps when it was first granted', async () => {
    const clock = { now: 1_700_000_000_000 };
    const store = createConsentStore(database.db, () => clock.now);
    expect(await store.find('acc-1', 'app')).toBeUndefined();
    const first = await store.allow('acc-1', 'app', { scopes: ['openid', 'profile'], claims: [] });
    expect(first).toEqual({ accountId: 'acc-1', clientId: 'app', scopes: ['openid', 'profile'], claims: [], grantedAt: clock.now, updatedAt: clock.now });
    clock.now += 60_000;
    const grown = await store.allow('acc-1', 'app', { scopes: ['profile', 'movies:read', 'offline_access'], claims: ['email'] });
    const expected = { accountId: 'acc-1', clientId: 'app', scopes: ['openid', 'profile', 'movies:read', 'offline_access'], claims: ['email'], grantedAt: clock.now - 60_000, updatedAt: clock.now };
    expect(grown).toEqual(expected);
    expect(await store.find('acc-1', 'app')).toEqual(expected);
    // Other users and other clients are other records.
    expect(await store.find('acc-2', 'app')).toBeUndefined();
    expect(await store.find('acc-1', 'other-app')).toBeUndefined();
  });

  it('lists an account’s records newest first, and revoke deletes one and says whether it was there', async () => {
    const clock = { now: 1_800_000_000_000 };
    const store = createConsentStore(database.db, () => clock.now);
    await store.allow('acc-3', 'older', { scopes: ['openid'], claims: [] });
    clock.now += 1_000;
    await store.allow('acc-3', 'newer', { scopes: ['openid', 'email'], claims: [] });
    await store.allow('acc-4', 'older', { scopes: ['openid'], claims: [] });
    expect((await store.listByAccount('acc-3')).map((c) => [c.clientId, c.scopes])).toEqual([
      ['newer', ['openid', 'email']],
      ['older', ['openid']],
    ]);
    expect(await store.revoke('acc-3', 'older')).toBe(true);
    expect(await store.revoke('acc-3', 'older')).toBe(false);
    expect((await store.listByAccount('acc-3')).map((c) => c.clientId)).toEqual(['newer']);
    expect((await store.listByAccount('acc-4')).map((c) => c.clientId)).toEqual(['older']);
    expect(await store.listByAccount('nobody')).toEqual([]);
  });
});
