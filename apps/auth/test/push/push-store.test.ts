import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createPushStore, type NewPushTransaction } from '../../src/push/push-store.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const T = 1_790_000_000_000;

describe.each(TEST_ENGINES)('push store on %s', (engine) => {
  const database = useAuthDatabase(engine);
  let now = T;
  const clock = () => now;
  const account = async (username: string) =>
    createAccountStore(database.db, createSecretBox(Buffer.alloc(32, 1)), clock).create({ username, email: `${username}@example.com`, name: username, groups: [], passwordHash: 'h' });
  const input = (accountId: string, interactionUid: string): NewPushTransaction => ({
    accountId,
    interactionUid,
    number: 42,
    choices: [17, 42, 93],
    clientName: 'App One',
    ip: '203.0.113.9',
    userAgent: 'Test/1.0',
    expiresAt: now + 60_000,
  });

  it('keeps one live push per login and lists an account’s pending pushes', async () => {
    const store = createPushStore(database.db, clock);
    const alice = await account('alice');
    const first = await store.create(input(alice.id, 'uid-1'));
    expect(first.created).toBe(true);
    expect(first.transaction).toMatchObject({ accountId: alice.id, interactionUid: 'uid-1', number: 42, choices: [17, 42, 93], state: 'PENDING', createdAt: T, expiresAt: T + 60_000, decidedAt: null, deviceId: null });
    const again = await store.create(input(alice.id, 'uid-1'));
    expect(again).toEqual({ transaction: first.transaction, created: false });
    const other = await store.create(input(alice.id, 'uid-2'));
    expect(other.created).toBe(true);
    expect((await store.listPending(alice.id)).map((t) => t.id)).toEqual([first.transaction.id, other.transaction.id].sort((a, b) => (a < b ? -1 : 1)));
    expect(await store.countSince(alice.id, T)).toBe(2);
    expect(await store.countSince(alice.id, T + 1)).toBe(0);
  });

  it('decides once, completes an approval once, and a decided login can push again', async () => {
    const store = createPushStore(database.db, clock);
    const bob = await account('bob');
    const { transaction } = await store.create(input(bob.id, 'uid-b'));
    expect(await store.complete(transaction.id)).toBe(false);
    expect(await store.decide(transaction.id, 'APPROVED', 'device-1')).toBe(true);
    expect(await store.decide(transaction.id, 'REJECTED', 'device-1')).toBe(false);
    expect(await store.find(transaction.id)).toMatchObject({ state: 'APPROVED', decidedAt: now, deviceId: 'device-1' });
    expect(await store.complete(transaction.id)).toBe(true);
    expect(await store.complete(transaction.id)).toBe(false);
    expect(await store.listPending(bob.id)).toEqual([]);
    const next = await store.create(input(bob.id, 'uid-b'));
    expect(next.created).toBe(true);
    expect(await store.decide(next.transaction.id, 'REJECTED', 'device-1')).toBe(true);
    expect((await store.find(next.transaction.id))?.state).toBe('REJECTED');
    expect(await store.decide('no-such-id', 'APPROVED', null)).toBe(false);
  });

  it('finds a login’s live and latest push; listing skips expired pushes without writing', async () => {
    const store = createPushStore(database.db, clock);
    const dave = await account('dave');
    expect(await store.findLive('uid-d')).toBeUndefined();
    expect(await store.findLatest('uid-d')).toBeUndefined();
    const { transaction: first } = await store.create(input(dave.id, 'uid-d'));
    expect(await store.findLive('uid-d')).toEqual(first);
    await store.decide(first.id, 'REJECTED', 'device-1');
    expect(await store.findLive('uid-d')).toBeUndefined();
    now += 1;
    const { transaction: second } = await store.create({ ...input(dave.id, 'uid-d'), expiresAt: now + 10 });
    expect((await store.findLatest('uid-d'))?.id).toBe(second.id);
    expect((await store.listPending(dave.id)).map((t) => t.id)).toEqual([second.id]);
    now += 10;
    expect(await store.listPending(dave.id)).toEqual([]);
    const raw = await database.db.selectFrom('push_transactions').select('state').where('id', '=', second.id).executeTakeFirstOrThrow();
    expect(raw.state).toBe('PENDING');
    expect((await store.findLatest('uid-d'))?.state).toBe('TIMEOUT');
    expect(await store.findLive('uid-d')).toBeUndefined();
  });

  it('an expired push reads as TIMEOUT, cannot be decided, and frees its login for a new push', async () => {
    const store = createPushStore(database.db, clock);
    const carol = await account('carol');
    const { transaction } = await store.create(input(carol.id, 'uid-c'));
    now = transaction.expiresAt;
    expect(await store.decide(transaction.id, 'APPROVED', 'device-1')).toBe(false);
    expect((await store.find(transaction.id))?.state).toBe('TIMEOUT');
    expect(await store.listPending(carol.id)).toEqual([]);
    const next = await store.create({ ...input(carol.id, 'uid-c'), expiresAt: now + 60_000 });
    expect(next.created).toBe(true);
    expect(next.transaction.id).not.toBe(transaction.id);
  });

  it('keeps why a push was rejected, and takes one report of a rejected push', async () => {
    const store = createPushStore(database.db, clock);
    const erin = await account('erin');
    const { transaction: denied } = await store.create(input(erin.id, 'uid-e1'));
    expect(denied).toMatchObject({ refusal: null, reportedAt: null });
    expect(await store.report(denied.id)).toBe(false);
    expect(await store.decide(denied.id, 'REJECTED', 'device-1')).toBe(true);
    expect(await store.find(denied.id)).toMatchObject({ state: 'REJECTED', refusal: 'denied', reportedAt: null });
    expect(await store.report(denied.id)).toBe(true);
    expect(await store.report(denied.id)).toBe(false);
    expect((await store.find(denied.id))?.reportedAt).toBe(now);

    const { transaction: mismatched } = await store.create(input(erin.id, 'uid-e2'));
    expect(await store.decide(mismatched.id, 'REJECTED', 'device-1', 'number_mismatch')).toBe(true);
    expect((await store.find(mismatched.id))?.refusal).toBe('number_mismatch');

    const { transaction: approved } = await store.create(input(erin.id, 'uid-e3'));
    expect(await store.decide(approved.id, 'APPROVED', 'device-1', 'number_mismatch')).toBe(true);
    expect((await store.find(approved.id))?.refusal).toBeNull();
    expect(await store.report(approved.id)).toBe(false);
  });
});
