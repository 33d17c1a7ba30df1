import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { AccountError, createAccountStore, type AccountStore } from '../../src/accounts/account-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const box = createSecretBox(Buffer.alloc(32, 1));
const NOW = 1_790_000_000_000;
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

async function expectAccountError(promise: Promise<unknown>, code: AccountError['code'], message: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AccountError);
  expect((error as AccountError).code).toBe(code);
  expect((error as AccountError).message).toBe(message);
}

describe.each(TEST_ENGINES)('account store on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const store = (): AccountStore => createAccountStore(database.db, box, () => NOW);
  const input = (username: string) => ({
    username,
    email: `${username.toLowerCase()}@example.com`,
    name: 'Alice Example',
    groups: ['admins', 'users'],
    passwordHash: '$argon2id$fake',
  });

  it('creates an account with a uuid and finds it by username (any case) and id', async () => {
    const created = await store().create(input('Alice'));
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      username: 'alice',
      email: 'alice@example.com',
      name: 'Alice Example',
      groups: ['admins', 'users'],
      passwordHash: '$argon2id$fake',
      totpEnrolled: false,
      createdAt: NOW,
      disabledAt: null,
    });
    expect(await store().findByUsername('ALICE')).toEqual(created);
    expect(await store().findById(created.id)).toEqual(created);
    expect(await store().findByUsername('nobody')).toBeUndefined();
    expect(await store().findById('00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });

  it('binds a looked-up username as a value: SQL in it matches nobody and changes nothing', async () => {
    await store().create(input('Quinn'));
    const before = await store().list();
    for (const probe of ["x' OR '1'='1", "quinn' --", "quinn'; DELETE FROM accounts; --", 'QUINN" OR ""="']) {
      expect(await store().findByUsername(probe)).toBeUndefined();
    }
    expect(await store().remove("nobody' OR '1'='1")).toBe(false);
    expect(await store().list()).toEqual(before);
    expect(before.map((a) => a.username)).toContain('quinn');
    expect(await store().remove('quinn')).toBe(true);
  });

  it('refuses a username that differs only in case', async () => {
    await expectAccountError(store().create(input('ALICE')), 'duplicate_username', 'username "alice" is already taken');
  });

  it('validates input', async () => {
    await expectAccountError(
      store().create(input('bad name')),
      'invalid_input',
      'username must be 1-64 characters of letters, digits, ".", "_", "@" or "-"',
    );
    for (const username of ['x'.repeat(65), '', 'a/b', 'é']) {
      await expectAccountError(
        store().create(input(username)),
        'invalid_input',
        'username must be 1-64 characters of letters, digits, ".", "_", "@" or "-"',
      );
    }
    expect((await store().create(input('x'.repeat(64)))).username).toBe('x'.repeat(64));
    expect(await store().remove('x'.repeat(64))).toBe(true);
    await expectAccountError(store().create({ ...input('bob'), email: 'bob' }), 'invalid_input', 'email must be a valid email address');
    await expectAccountError(store().create({ ...input('bob'), name: '  ' }), 'invalid_input', 'name must not be empty');
    await expectAccountError(store().create({ ...input('bob'), name: 'a\nb' }), 'invalid_input', 'name must not contain control characters');
    await expectAccountError(
      store().create({ ...input('bob'), groups: ['a b'] }),
      'invalid_input',
      'each group must be 1-64 characters without spaces or commas',
    );
    expect(await store().findByUsername('bob')).toBeUndefined();
  });

  it('lists accounts sorted by username and removes them', async () => {
    await store().create(input('bob'));
    await store().create({ ...input('carol.c@corp'), email: 'carol@corp.example' });
    expect((await store().list()).map((a) => a.username)).toEqual(['alice', 'bob', 'carol.c@corp']);
    expect(await store().remove('BOB')).toBe(true);
    expect(await store().remove('bob')).toBe(false);
    expect((await store().list()).map((a) => a.username)).toEqual(['alice', 'carol.c@corp']);
  });

  it('changes the password hash', async () => {
    const alice = (await store().findByUsername('alice'))!;
    await store().setPassword(alice.id, '$argon2id$new');
    expect((await store().findById(alice.id))!.passwordHash).toBe('$argon2id$new');
    await expectAccountError(store().setPassword('missing', '$x'), 'unknown_user', 'no account with id missing');
  });

  it('stores the TOTP secret sealed and reads it back', async () => {
    const alice = (await store().findByUsername('alice'))!;
    expect(await store().getTotpSecret(alice.id)).toBeUndefined();
    await store().setTotpSecret(alice.id, SECRET);
    expect(await store().getTotpSecret(alice.id)).toBe(SECRET);
    expect((await store().findById(alice.id))!.totpEnrolled).toBe(true);
    const raw = await database.db.selectFrom('accounts').select('totp_secret_sealed').where('id', '=', alice.id).executeTakeFirstOrThrow();
    expect(raw.totp_secret_sealed).toMatch(/^v2\.[A-Za-z0-9_-]{8}\./);
    expect(raw.totp_secret_sealed).not.toContain(SECRET);
    await expectAccountError(store().setTotpSecret('missing', SECRET), 'unknown_user', 'no account with id missing');
  });

  it('accepts each TOTP step once and refuses earlier steps (replay)', async () => {
    const alice = (await store().findByUsername('alice'))!;
    expect(await store().consumeTotpStep(alice.id, 100)).toBe(true);
    expect(await store().consumeTotpStep(alice.id, 100)).toBe(false);
    expect(await store().consumeTotpStep(alice.id, 99)).toBe(false);
    expect(await store().consumeTotpStep(alice.id, 101)).toBe(true);
    const results = await Promise.all([store().consumeTotpStep(alice.id, 105), store().consumeTotpStep(alice.id, 105)]);
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('re-enrolment resets the last used step; clearing the secret un-enrols', async () => {
    const alice = (await store().findByUsername('alice'))!;
    await store().setTotpSecret(alice.id, SECRET);
    expect(await store().consumeTotpStep(alice.id, 50)).toBe(true);
    await store().setTotpSecret(alice.id, null);
    expect(await store().getTotpSecret(alice.id)).toBeUndefined();
    expect((await store().findById(alice.id))!.totpEnrolled).toBe(false);
    expect(await store().consumeTotpStep(alice.id, 60)).toBe(false);
    expect(await store().consumeTotpStep('missing', 60)).toBe(false);
  });
});
