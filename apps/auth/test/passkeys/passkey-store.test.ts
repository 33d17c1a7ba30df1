import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createPasskeyStore, type NewPasskey } from '../../src/passkeys/passkey-store.ts';
import { CHALLENGE_TTL_MS, createChallengeStore, MAX_LIVE_CHALLENGES } from '../../src/passkeys/challenge-store.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

describe.each(TEST_ENGINES)('passkey store on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const account = async (username: string) =>
    createAccountStore(database.db, createSecretBox(Buffer.alloc(32, 1))).create({ username, email: `${username}@example.com`, name: username, groups: [], passwordHash: 'h' });
  const key = (id: string, accountId: string): NewPasskey => ({
    id,
    accountId,
    name: `key ${id}`,
    publicKey: new Uint8Array([1, 2, 3, 250]),
    counter: 0,
    transports: ['usb', 'nfc'],
    deviceType: 'singleDevice',
    backedUp: false,
  });

  it('stores several named credentials per account, round-trips every field, refuses a duplicate id', async () => {
    let now = 1_000;
    const store = createPasskeyStore(database.db, () => now);
    const alice = await account('alice-pk');
    expect(await store.add(key('cred-a1', alice.id))).toBe(true);
    now = 2_000;
    expect(await store.add({ ...key('cred-a2', alice.id), deviceType: 'multiDevice', backedUp: true, transports: [] })).toBe(true);
    expect(await store.add(key('cred-a1', alice.id))).toBe(false);
    expect(await store.countByAccount(alice.id)).toBe(2);
    const listed = await store.listByAccount(alice.id);
    expect(listed.map((p) => [p.id, p.name, p.deviceType, p.backedUp, p.transports, p.createdAt, p.lastUsedAt])).toEqual([
      ['cred-a1', 'key cred-a1', 'singleDevice', false, ['usb', 'nfc'], 1_000, null],
      ['cred-a2', 'key cred-a2', 'multiDevice', true, [], 2_000, null],
    ]);
    expect([...(await store.find('cred-a1'))!.publicKey]).toEqual([1, 2, 3, 250]);
    expect(await store.find('nope')).toBeUndefined();
  });

  it('moves the counter only from the value verified against (compare-and-set)', async () => {
    const store = createPasskeyStore(database.db);
    const bob = await account('bob-pk');
    await store.add(key('cred-b1', bob.id));
    expect(await store.recordUse('cred-b1', 0, 5, 10_000)).toBe(true);
    expect(await store.recordUse('cred-b1', 0, 6, 11_000)).toBe(false);
    const after = (await store.find('cred-b1'))!;
    expect([after.counter, after.lastUsedAt]).toEqual([5, 10_000]);
  });

  it('removes a credential only for its owner', async () => {
    const store = createPasskeyStore(database.db);
    const carol = await account('carol-pk');
    const dave = await account('dave-pk');
    await store.add(key('cred-c1', carol.id));
    expect(await store.remove(dave.id, 'cred-c1')).toBe(false);
    expect(await store.remove(carol.id, 'cred-c1')).toBe(true);
    expect(await store.remove(carol.id, 'cred-c1')).toBe(false);
    expect(await store.countByAccount(carol.id)).toBe(0);
  });
});

describe.each(TEST_ENGINES)('passkey challenge store on %s', (engine) => {
  const database = useAuthDatabase(engine);

  it('gives a challenge once, for its purpose and binding only, until it expires', async () => {
    let now = 50_000;
    const store = createChallengeStore(database.db, () => now);
    const challenge = await store.issue('authentication', 'interaction:abc');
    expect(challenge).toMatch(/^[\w-]{43}$/);
    expect(await store.take(challenge, 'registration', 'interaction:abc')).toBe(false);
    expect(await store.take(challenge, 'authentication', 'interaction:other')).toBe(false);
    expect(await store.take(challenge, 'authentication', 'interaction:abc')).toBe(true);
    expect(await store.take(challenge, 'authentication', 'interaction:abc')).toBe(false);

    const late = await store.issue('registration', 'account:x');
    now += CHALLENGE_TTL_MS;
    expect(await store.take(late, 'registration', 'account:x')).toBe(false);
    expect(await store.take('not a challenge!', 'registration', 'account:x')).toBe(false);
  });

  it('keeps at most MAX_LIVE_CHALLENGES per purpose and binding, dropping the oldest', async () => {
    let now = 100_000;
    const store = createChallengeStore(database.db, () => now);
    const issued: string[] = [];
    for (let i = 0; i < MAX_LIVE_CHALLENGES + 2; i += 1) {
      issued.push(await store.issue('authentication', 'interaction:many'));
      now += 1;
    }
    const other = await store.issue('authentication', 'interaction:else');
    expect(await store.take(issued[0]!, 'authentication', 'interaction:many')).toBe(false);
    expect(await store.take(issued[1]!, 'authentication', 'interaction:many')).toBe(false);
    for (const challenge of issued.slice(2)) expect(await store.take(challenge, 'authentication', 'interaction:many')).toBe(true);
    expect(await store.take(other, 'authentication', 'interaction:else')).toBe(true);
  });

  it('purges expired challenges only', async () => {
    let now = 0;
    const store = createChallengeStore(database.db, () => now);
    const old = await store.issue('registration', 'account:purge');
    now = CHALLENGE_TTL_MS / 2;
    const fresh = await store.issue('registration', 'account:purge');
    now = CHALLENGE_TTL_MS;
    await store.purgeExpired();
    const left = await database.db.selectFrom('passkey_challenges').select('challenge').where('binding', '=', 'account:purge').execute();
    expect(left.map((r) => r.challenge)).toEqual([fresh]);
    expect(left.map((r) => r.challenge)).not.toContain(old);
  });
});
