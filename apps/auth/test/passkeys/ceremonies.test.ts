/**
 * The registration and authentication ceremonies against generated WebAuthn objects (a software
 * authenticator): the good case and each way an answer must be refused.
 */
import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createPasskeyStore } from '../../src/passkeys/passkey-store.ts';
import { createChallengeStore } from '../../src/passkeys/challenge-store.ts';
import { relyingParty, PasskeyRefused } from '../../src/passkeys/passkey-policy.ts';
import { registrationOptions, verifyRegistration } from '../../src/passkeys/registration.ts';
import { authenticationOptions, PasskeyAssertionRefused, verifyAuthentication } from '../../src/passkeys/authentication.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const ISSUER = 'https://login.example.test';

describe.each(TEST_ENGINES)('passkey ceremonies on %s', (engine) => {
  const database = useAuthDatabase(engine);
  let now = 1_700_000_000_000;
  const deps = () => ({
    passkeys: createPasskeyStore(database.db, () => now),
    challenges: createChallengeStore(database.db, () => now),
    rp: relyingParty(ISSUER),
    clock: () => now,
  });
  let n = 0;
  const newAccount = async () => {
    const username = `pk-${engine}-${++n}`;
    return createAccountStore(database.db, createSecretBox(Buffer.alloc(32, 1))).create({ username, email: `${username}@example.com`, name: username, groups: [], passwordHash: 'h' });
  };
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(error instanceof PasskeyRefused)) throw new Error(`expected a passkey refusal, got ${String(error)}`);
    return { status: error.status, code: error.code, reason: error.reason };
  };
  const registered = async (soft = new SoftAuthenticator(ISSUER)) => {
    const account = await newAccount();
    const options = await registrationOptions(deps(), account);
    const passkey = await verifyRegistration(deps(), account.id, 'Laptop', JSON.stringify(soft.register(options)));
    return { account, soft, passkey };
  };

  it('registers with the issuer as relying party, attestation none, the account excluded from re-registering', async () => {
    const { account, soft, passkey } = await registered();
    expect(passkey).toMatchObject({ id: soft.credentials[0]!.id, accountId: account.id, name: 'Laptop', counter: 0, deviceType: 'singleDevice', backedUp: false, transports: ['internal'] });
    const again = await registrationOptions(deps(), account);
    expect(again.rp).toEqual({ id: 'login.example.test', name: 'Gatehouse' });
    expect(again.attestation).toBe('none');
    expect(again.authenticatorSelection).toMatchObject({ residentKey: 'preferred', userVerification: 'preferred' });
    expect(again.excludeCredentials).toEqual([{ id: passkey.id, type: 'public-key', transports: ['internal'] }]);
  });

  it('refuses a registration from another origin, for another RP ID, on a wrong or replayed challenge', async () => {
    const account = await newAccount();
    const soft = new SoftAuthenticator(ISSUER);
    const options = await registrationOptions(deps(), account);
    expect(await refusal(verifyRegistration(deps(), account.id, 'x', JSON.stringify(soft.register(options, { origin: 'https://evil.example.test' }))))).toEqual({
      status: 400,
      code: 'passkey_invalid',
      reason: 'verification_failed',
    });
    // The challenge was used by that attempt: the same options cannot be answered again.
    expect((await refusal(verifyRegistration(deps(), account.id, 'x', JSON.stringify(soft.register(options))))).reason).toBe('invalid_challenge');
    const second = await registrationOptions(deps(), account);
    expect((await refusal(verifyRegistration(deps(), account.id, 'x', JSON.stringify(soft.register(second, { rpId: 'evil.example.test' }))))).reason).toBe('verification_failed');
    const third = await registrationOptions(deps(), account);
    expect((await refusal(verifyRegistration(deps(), account.id, 'x', JSON.stringify(soft.register(third, { challenge: 'bm90LWlzc3VlZA' }))))).code).toBe('passkey_challenge_invalid');
    // A challenge issued to another account is not this one's.
    const other = await newAccount();
    const foreign = await registrationOptions(deps(), other);
    expect((await refusal(verifyRegistration(deps(), account.id, 'x', JSON.stringify(soft.register(foreign))))).reason).toBe('invalid_challenge');
    expect(await deps().passkeys.countByAccount(account.id)).toBe(0);
  });

  it('authenticates a good assertion once per challenge, moving the counter and the last use', async () => {
    const { account, soft, passkey } = await registered();
    const options = await authenticationOptions(deps(), 'uid-good', { userVerification: 'required' });
    expect(options).toMatchObject({ rpId: 'login.example.test', userVerification: 'required', allowCredentials: [], timeout: 120_000 });
    const answer = JSON.stringify(soft.authenticate(options));
    now += 1000;
    const verified = await verifyAuthentication(deps(), 'uid-good', answer, { userVerification: 'required' });
    expect(verified.userVerified).toBe(true);
    expect(verified.passkey).toMatchObject({ id: passkey.id, accountId: account.id, counter: 1 });
    expect(await deps().passkeys.find(passkey.id)).toMatchObject({ counter: 1, lastUsedAt: now });
    // Replaying the very same answer: its challenge is gone.
    expect(await refusal(verifyAuthentication(deps(), 'uid-good', answer, { userVerification: 'required' }))).toEqual({
      status: 401,
      code: 'passkey_challenge_invalid',
      reason: 'invalid_challenge',
    });
  });

  it('refuses a wrong origin, a wrong RP ID, an unknown challenge, another interaction’s challenge', async () => {
    const { soft } = await registered();
    const opts = () => authenticationOptions(deps(), 'uid-bad', { userVerification: 'preferred' });
    const check = (answer: unknown, uid = 'uid-bad') => refusal(verifyAuthentication(deps(), uid, JSON.stringify(answer), { userVerification: 'preferred' }));
    expect((await check(soft.authenticate(await opts(), { origin: 'https://login.example.test.evil.test' }))).reason).toBe('verification_failed');
    expect((await check(soft.authenticate(await opts(), { origin: 'http://login.example.test' }))).reason).toBe('verification_failed');
    expect((await check(soft.authenticate(await opts(), { rpId: 'example.test' }))).reason).toBe('verification_failed');
    expect((await check(soft.authenticate(await opts(), { challenge: 'c29tZXRoaW5nLWVsc2U' }))).reason).toBe('invalid_challenge');
    expect((await check(soft.authenticate(await opts()), 'uid-other')).reason).toBe('invalid_challenge');
  });

  it('refuses a credential of another account as a second factor, an unknown one, and no user verification when required', async () => {
    const { soft } = await registered();
    const other = await newAccount();
    const opts = () => authenticationOptions(deps(), 'uid-x', { userVerification: 'required' });
    expect((await refusal(verifyAuthentication(deps(), 'uid-x', JSON.stringify(soft.authenticate(await opts())), { userVerification: 'preferred', accountId: other.id }))).code).toBe('passkey_unknown');
    const stranger = new SoftAuthenticator(ISSUER);
    stranger.register({ challenge: 'eA', rp: { id: 'login.example.test' }, user: { id: 'dQ' } });
    expect((await refusal(verifyAuthentication(deps(), 'uid-x', JSON.stringify(stranger.authenticate(await opts())), { userVerification: 'required' }))).reason).toBe('unknown_credential');
    const noUv = JSON.stringify(soft.authenticate(await opts(), { userVerified: false }));
    expect(await refusal(verifyAuthentication(deps(), 'uid-x', noUv, { userVerification: 'required' }))).toEqual({ status: 401, code: 'passkey_user_not_verified', reason: 'user_not_verified' });
    // A user handle naming someone else than the credential's owner.
    const mislabeled = new SoftAuthenticator(ISSUER);
    const owner = await newAccount();
    await verifyRegistration(deps(), owner.id, 'k', JSON.stringify(mislabeled.register(await registrationOptions(deps(), owner))));
    mislabeled.credentials[0]!.userHandle = Buffer.from(other.id).toString('base64url');
    expect((await refusal(verifyAuthentication(deps(), 'uid-x', JSON.stringify(mislabeled.authenticate(await opts())), { userVerification: 'required' }))).reason).toBe('foreign_credential');
    // As a second factor, presence alone is enough.
    const preferred = await verifyAuthentication(deps(), 'uid-x', JSON.stringify(soft.authenticate(await opts(), { userVerified: false })), { userVerification: 'preferred' });
    expect(preferred.userVerified).toBe(false);
  });

  it('detects a cloned authenticator: a counter that does not grow is refused and the stored counter stays', async () => {
    const { soft, passkey } = await registered();
    const opts = () => authenticationOptions(deps(), 'uid-clone', { userVerification: 'required' });
    await verifyAuthentication(deps(), 'uid-clone', JSON.stringify(soft.authenticate(await opts(), { counter: 7 })), { userVerification: 'required' });
    for (const counter of [7, 3]) {
      const error = await verifyAuthentication(deps(), 'uid-clone', JSON.stringify(soft.authenticate(await opts(), { counter })), { userVerification: 'required' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PasskeyAssertionRefused);
      expect((error as PasskeyAssertionRefused).code).toBe('passkey_cloned');
      expect((error as PasskeyAssertionRefused).counters).toEqual({ stored: 7, presented: counter });
    }
    expect((await deps().passkeys.find(passkey.id))!.counter).toBe(7);
    await verifyAuthentication(deps(), 'uid-clone', JSON.stringify(soft.authenticate(await opts(), { counter: 8 })), { userVerification: 'required' });
    expect((await deps().passkeys.find(passkey.id))!.counter).toBe(8);
  });

  it('accepts an authenticator that keeps no counter (always 0)', async () => {
    const { soft } = await registered(new SoftAuthenticator(ISSUER, { counter: false, synced: true }));
    for (let i = 0; i < 2; i++) {
      const options = await authenticationOptions(deps(), 'uid-zero', { userVerification: 'required' });
      const verified = await verifyAuthentication(deps(), 'uid-zero', JSON.stringify(soft.authenticate(options)), { userVerification: 'required' });
      expect(verified.passkey).toMatchObject({ counter: 0, deviceType: 'multiDevice', backedUp: true });
    }
  });

  it('refuses a challenge past its lifetime', async () => {
    const { soft } = await registered();
    const options = await authenticationOptions(deps(), 'uid-late', { userVerification: 'required' });
    now += 5 * 60_000;
    expect((await refusal(verifyAuthentication(deps(), 'uid-late', JSON.stringify(soft.authenticate(options)), { userVerification: 'required' }))).reason).toBe('invalid_challenge');
  });
});
