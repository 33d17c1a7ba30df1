import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createRecoveryCodeStore } from '../../src/recovery/recovery-code-store.ts';
import { generateRecoveryCode, normalizeRecoveryCode, RECOVERY_CODE_COUNT } from '../../src/recovery/recovery-codes.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

describe.each(TEST_ENGINES)('recovery code store on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const account = async (username: string) =>
    createAccountStore(database.db, createSecretBox(Buffer.alloc(32, 1))).create({ username, email: `${username}@example.com`, name: username, groups: [], passwordHash: 'h' });

  it('issues 10 codes, each accepted once, for its own account only', async () => {
    const store = createRecoveryCodeStore(database.db);
    const alice = await account('alice');
    const bob = await account('bob');
    const codes = await store.replace(alice.id);
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    expect(await store.remaining(alice.id)).toBe(10);
    expect(await store.consume(bob.id, codes[0]!)).toBe('invalid');
    expect(await store.consume(alice.id, codes[0]!.toUpperCase().replaceAll('-', ' '))).toBe('accepted');
    expect(await store.consume(alice.id, codes[0]!)).toBe('used');
    expect(await store.remaining(alice.id)).toBe(9);
    expect(await store.consume(alice.id, 'nope')).toBe('invalid');
  });

  it('a fresh set invalidates the old one', async () => {
    const store = createRecoveryCodeStore(database.db);
    const carol = await account('carol');
    const old = await store.replace(carol.id);
    const fresh = await store.replace(carol.id);
    expect(await store.consume(carol.id, old[1]!)).toBe('invalid');
    expect(await store.consume(carol.id, fresh[1]!)).toBe('accepted');
    expect(await store.remaining(carol.id)).toBe(9);
  });
});

describe('recovery code format', () => {
  it('is four groups of four base32 characters; input is normalised', () => {
    const code = generateRecoveryCode();
    expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/);
    expect(normalizeRecoveryCode(` ${code.toUpperCase()} `)).toBe(code.replaceAll('-', ''));
    expect(normalizeRecoveryCode('ilo0-1111-2222-3333')).toBe('1100111122223333');
    expect(normalizeRecoveryCode('uuuu-1111-2222-3333')).toBeUndefined();
    expect(normalizeRecoveryCode('1111-2222-3333')).toBeUndefined();
  });
});
