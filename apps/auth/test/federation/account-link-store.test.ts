/**
 * The account links (federation/account-link-store.ts) on SQLite and PostgreSQL: found by
 * (provider, subject) only, one account per upstream user and one link per provider on an
 * account, refusals with stable codes, last use recorded by the injected clock, removed one by
 * one, by provider, and with their account.
 */
import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { AccountLinkError, createAccountLinkStore } from '../../src/federation/account-link-store.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const box = createSecretBox(Buffer.alloc(32, 9));

describe.each(TEST_ENGINES)('account link store on %s', (engine) => {
  const database = useAuthDatabase(engine);
  let n = 0;

  async function account(): Promise<string> {
    n += 1;
    const created = await createAccountStore(database.db, box).create({ username: `linked-${n}`, email: `l${n}@example.com`, name: `L ${n}`, groups: [], passwordHash: 'x' });
    return created.id;
  }

  async function refusal(promise: Promise<unknown>): Promise<string> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AccountLinkError);
    return (error as AccountLinkError).code;
  }

  it('creates a link found by provider and subject only, and records its last use', async () => {
    const clock = { now: 1_700_000_000_000 };
    const store = createAccountLinkStore(database.db, () => clock.now);
    const accountId = await account();
    const link = await store.create({ provider: 'acme', subject: 'u-1', accountId });
    expect(link).toEqual({ provider: 'acme', subject: 'u-1', accountId, createdAt: clock.now, lastUsedAt: null });
    expect(await store.find('acme', 'u-1')).toEqual(link);
    expect(await store.find('acme', 'U-1')).toBeUndefined();
    expect(await store.find('other', 'u-1')).toBeUndefined();
    clock.now += 5_000;
    await store.touch('acme', 'u-1');
    expect(await store.find('acme', 'u-1')).toEqual({ ...link, lastUsedAt: clock.now });
  });

  it('refuses a second account for one upstream user, a second link to one provider, and an unknown account', async () => {
    const store = createAccountLinkStore(database.db, () => 1);
    const first = await account();
    const second = await account();
    await store.create({ provider: 'acme', subject: 'u-2', accountId: first });
    expect(await refusal(store.create({ provider: 'acme', subject: 'u-2', accountId: second }))).toBe('already_linked');
    expect(await refusal(store.create({ provider: 'acme', subject: 'u-2', accountId: first }))).toBe('already_linked');
    expect(await refusal(store.create({ provider: 'acme', subject: 'u-3', accountId: first }))).toBe('provider_already_linked');
    expect(await refusal(store.create({ provider: 'acme', subject: 'u-9', accountId: 'no-such-account' }))).toBe('unknown_account');
    // Another provider's user of the same subject is another link.
    await store.create({ provider: 'github', subject: 'u-2', accountId: second });
    expect((await store.find('acme', 'u-2'))?.accountId).toBe(first);
    expect((await store.find('github', 'u-2'))?.accountId).toBe(second);
  });

  it('lists an account’s links oldest first and removes one, a provider’s, and an account’s', async () => {
    const clock = { now: 1_800_000_000_000 };
    const store = createAccountLinkStore(database.db, () => clock.now);
    const accountId = await account();
    const other = await account();
    await store.create({ provider: 'zeta', subject: 'z', accountId });
    clock.now += 1;
    await store.create({ provider: 'alpha', subject: 'a', accountId });
    await store.create({ provider: 'alpha', subject: 'b', accountId: other });
    expect((await store.listByAccount(accountId)).map((l) => [l.provider, l.subject])).toEqual([
      ['zeta', 'z'],
      ['alpha', 'a'],
    ]);
    expect(await store.remove(accountId, 'zeta')).toBe(true);
    expect(await store.remove(accountId, 'zeta')).toBe(false);
    expect(await store.removeByProvider('alpha')).toBe(2);
    expect(await store.listByAccount(accountId)).toEqual([]);
    await store.create({ provider: 'gamma', subject: 'g', accountId: other });
    const username = `linked-${n}`;
    expect(await createAccountStore(database.db, box).remove(username)).toBe(true);
    expect(await store.find('gamma', 'g')).toBeUndefined();
  });
});
