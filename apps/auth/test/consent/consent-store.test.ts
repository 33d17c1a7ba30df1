/**
 * The consent record (consent/consent-store.ts) on SQLite and PostgreSQL: created by the first
 * allow, grown by later ones (nothing granted is lost, nothing repeated), listed per account
 * newest first, deleted by revoke, and removed with its account or its client (migration 019's
 * foreign keys), so a client id registered again asks again.
 */
import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { createClientStore } from '../../src/clients/client-store.ts';
import { createConsentStore } from '../../src/consent/consent-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const box = createSecretBox(Buffer.alloc(32, 7));

describe.each(TEST_ENGINES)('consent store on %s', (engine) => {
  const database = useAuthDatabase(engine);
  let n = 0;

  /** A real account and client: the records reference both. */
  async function accountAndClient(): Promise<{ accountId: string; clientId: string }> {
    n += 1;
    const account = await createAccountStore(database.db, box).create({ username: `consent-${n}`, email: `c${n}@example.com`, name: `C ${n}`, groups: [], passwordHash: 'x' });
    const clientId = `consent-app-${n}`;
    await createClientStore(database.db, box).create({ clientId, redirectUris: ['https://app.example/cb'] });
    return { accountId: account.id, clientId };
  }

  it('allow creates the record, later allows add to it, and it keeps when it was first granted', async () => {
    const clock = { now: 1_700_000_000_000 };
    const store = createConsentStore(database.db, () => clock.now);
    const { accountId, clientId } = await accountAndClient();
    const other = await accountAndClient();
    expect(await store.find(accountId, clientId)).toBeUndefined();
    const first = await store.allow(accountId, clientId, { scopes: ['openid', 'profile'] });
    expect(first).toEqual({ accountId, clientId, scopes: ['openid', 'profile'], grantedAt: clock.now, updatedAt: clock.now });
    clock.now += 60_000;
    const grown = await store.allow(accountId, clientId, { scopes: ['profile', 'movies:read', 'offline_access'] });
    const expected = { accountId, clientId, scopes: ['openid', 'profile', 'movies:read', 'offline_access'], grantedAt: clock.now - 60_000, updatedAt: clock.now };
    expect(grown).toEqual(expected);
    expect(await store.find(accountId, clientId)).toEqual(expected);
    // Other users and other clients are other records.
    expect(await store.find(other.accountId, clientId)).toBeUndefined();
    expect(await store.find(accountId, other.clientId)).toBeUndefined();
  });

  it('lists an account’s records newest first, and revoke deletes one and says whether it was there', async () => {
    const clock = { now: 1_800_000_000_000 };
    const store = createConsentStore(database.db, () => clock.now);
    const { accountId, clientId: older } = await accountAndClient();
    const { accountId: otherAccount, clientId: newer } = await accountAndClient();
    await store.allow(accountId, older, { scopes: ['openid'] });
    clock.now += 1_000;
    await store.allow(accountId, newer, { scopes: ['openid', 'email'] });
    await store.allow(otherAccount, older, { scopes: ['openid'] });
    expect((await store.listByAccount(accountId)).map((c) => [c.clientId, c.scopes])).toEqual([
      [newer, ['openid', 'email']],
      [older, ['openid']],
    ]);
    expect(await store.revoke(accountId, older)).toBe(true);
    expect(await store.revoke(accountId, older)).toBe(false);
    expect((await store.listByAccount(accountId)).map((c) => c.clientId)).toEqual([newer]);
    expect((await store.listByAccount(otherAccount)).map((c) => c.clientId)).toEqual([older]);
    expect(await store.listByAccount('nobody')).toEqual([]);
  });

  it('a removed client or account takes its records along; the client id registered again has none', async () => {
    const store = createConsentStore(database.db, () => 1_900_000_000_000);
    const clients = createClientStore(database.db, box);
    const { accountId, clientId } = await accountAndClient();
    const second = await accountAndClient();
    await store.allow(accountId, clientId, { scopes: ['openid'] });
    await store.allow(accountId, second.clientId, { scopes: ['openid'] });
    await store.allow(second.accountId, second.clientId, { scopes: ['openid'] });

    expect(await clients.remove(clientId)).toBe(true);
    expect(await store.find(accountId, clientId)).toBeUndefined();
    await clients.create({ clientId, redirectUris: ['https://someone-else.example/cb'] });
    expect(await store.find(accountId, clientId)).toBeUndefined();

    expect(await createAccountStore(database.db, box).remove((await createAccountStore(database.db, box).findById(second.accountId))!.username)).toBe(true);
    expect(await store.listByAccount(second.accountId)).toEqual([]);
    expect((await store.listByAccount(accountId)).map((c) => c.clientId)).toEqual([second.clientId]);
  });
});
