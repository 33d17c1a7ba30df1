import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createDeviceStore, normalizeDeviceName } from '../../src/devices/device-store.ts';
import { createEnrollmentStore, ENROLLMENT_TTL_MS } from '../../src/devices/enrollment-store.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const T = 1_790_000_000_000;
const KEY = { kty: 'EC', crv: 'P-256', x: 'x-coordinate', y: 'y-coordinate' } as const;

describe.each(TEST_ENGINES)('device and enrollment stores on %s', (engine) => {
  const database = useAuthDatabase(engine);
  let now = T;
  const clock = () => now;
  const account = async (username: string) =>
    createAccountStore(database.db, createSecretBox(Buffer.alloc(32, 1)), clock).create({ username, email: `${username}@example.com`, name: username, groups: [], passwordHash: 'h' });

  it('creates, lists, counts and removes devices only for their owner', async () => {
    const devices = createDeviceStore(database.db, clock);
    const alice = await account('alice');
    const bob = await account('bob');
    const phone = await devices.create({ accountId: alice.id, name: 'Phone', publicKey: { ...KEY, extra: 'dropped' } as typeof KEY });
    now += 1;
    const tablet = await devices.create({ accountId: alice.id, name: 'Tablet', publicKey: KEY });
    await devices.create({ accountId: bob.id, name: 'Bob phone', publicKey: KEY });
    expect(phone).toEqual({ id: expect.any(String), accountId: alice.id, name: 'Phone', publicKey: KEY, createdAt: T, lastUsedAt: null });
    expect((await devices.listByAccount(alice.id)).map((d) => d.name)).toEqual(['Phone', 'Tablet']);
    expect(await devices.countByAccount(alice.id)).toBe(2);
    expect(await devices.remove(bob.id, phone.id)).toBe(false);
    expect(await devices.find(phone.id)).toEqual(phone);
    await devices.touch(tablet.id, T + 500);
    expect((await devices.find(tablet.id))?.lastUsedAt).toBe(T + 500);
    expect(await devices.remove(alice.id, phone.id)).toBe(true);
    expect(await devices.find(phone.id)).toBeUndefined();
    expect(await devices.countByAccount(alice.id)).toBe(1);
  });

  it('accepts a nonce once per device and forgets expired ones', async () => {
    const devices = createDeviceStore(database.db, clock);
    const carol = await account('carol');
    const device = await devices.create({ accountId: carol.id, name: 'Phone', publicKey: KEY });
    const other = await devices.create({ accountId: carol.id, name: 'Other', publicKey: KEY });
    expect(await devices.useNonce(device.id, 'n1', now, now + 1000)).toBe(true);
    expect(await devices.useNonce(device.id, 'n1', now, now + 1000)).toBe(false);
    expect(await devices.useNonce(other.id, 'n1', now, now + 1000)).toBe(true);
  });

  it('an enrollment code works once, before it expires, and a new code voids the old one', async () => {
    const enrollments = createEnrollmentStore(database.db, clock);
    const dave = await account('dave');
    const first = await enrollments.issue(dave.id);
    expect(first.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(first.expiresAt).toBe(now + ENROLLMENT_TTL_MS);
    const second = await enrollments.issue(dave.id);
    expect(await enrollments.consume(first.code)).toBeUndefined();
    expect(await enrollments.consume(second.code)).toBe(dave.id);
    expect(await enrollments.consume(second.code)).toBeUndefined();
    const third = await enrollments.issue(dave.id);
    now += ENROLLMENT_TTL_MS;
    expect(await enrollments.consume(third.code)).toBeUndefined();
    expect(await enrollments.consume('not a code!')).toBeUndefined();
  });

  it('a code is found in any case and grouping, with I/L read as 1 and O as 0', async () => {
    const enrollments = createEnrollmentStore(database.db, clock);
    const fay = await account('fay');
    const { code } = await enrollments.issue(fay.id);
    const typed = code.toLowerCase().replace(/-/g, ' ').replace(/1/g, 'l').replace(/0/g, 'o');
    expect(await enrollments.consume(` ${typed.slice(0, 6)}-${typed.slice(6)} `)).toBe(fay.id);
    expect(await enrollments.consume(code)).toBeUndefined();
    const next = await enrollments.issue(fay.id);
    expect(await enrollments.consume(next.code.slice(0, -1))).toBeUndefined();
    expect(await enrollments.consume(`${next.code}0`)).toBeUndefined();
    expect(await enrollments.consume(next.code.replace(/-/g, '_'))).toBeUndefined();
    expect(await enrollments.consume(next.code)).toBe(fay.id);
  });

  it("tells the state of an account's latest code: pending, enrolled, expired", async () => {
    const enrollments = createEnrollmentStore(database.db, clock);
    const gus = await account('gus');
    expect(await enrollments.status(gus.id)).toEqual({ state: 'expired' });
    const first = await enrollments.issue(gus.id);
    expect(await enrollments.status(gus.id)).toEqual({ state: 'pending', expiresAt: first.expiresAt });
    now += 5;
    expect(await enrollments.consume(first.code)).toBe(gus.id);
    expect(await enrollments.status(gus.id)).toEqual({ state: 'enrolled', usedAt: now });
    now += 5;
    await enrollments.issue(gus.id);
    expect((await enrollments.status(gus.id)).state).toBe('pending');
    now += ENROLLMENT_TTL_MS;
    expect(await enrollments.status(gus.id)).toEqual({ state: 'expired' });
  });

  it('removing an account removes its devices', async () => {
    const devices = createDeviceStore(database.db, clock);
    const erin = await account('erin');
    const device = await devices.create({ accountId: erin.id, name: 'Phone', publicKey: KEY });
    await createAccountStore(database.db, createSecretBox(Buffer.alloc(32, 1)), clock).remove('erin');
    expect(await devices.find(device.id)).toBeUndefined();
  });
});

describe('device names', () => {
  it('are trimmed, 1-64 characters, without control characters', () => {
    expect(normalizeDeviceName('  My phone ')).toBe('My phone');
    expect(normalizeDeviceName('')).toBeUndefined();
    expect(normalizeDeviceName('a'.repeat(65))).toBeUndefined();
    expect(normalizeDeviceName('bad\nname')).toBeUndefined();
  });
});
