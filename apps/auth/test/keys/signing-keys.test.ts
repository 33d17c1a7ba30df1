import { describe, expect, it } from 'vitest';
import { compactVerify, CompactSign, importJWK, type JWK } from 'jose';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createKeyStore, type KeyStore } from '../../src/keys/key-store.ts';
import {
  ensureSigningKey,
  generateSigningKey,
  keySetFingerprint,
  loadSigningJwks,
  rotateSigningKeys,
} from '../../src/keys/signing-keys.ts';
import { useAuthDatabase } from '../storage/auth-test-database.ts';

const box = createSecretBox(Buffer.alloc(32, 3));
const T = 1_790_000_000_000;
const HOUR = 3_600_000;

describe('generateSigningKey', () => {
  it('creates an extractable RS256 2048-bit private JWK whose kid is its thumbprint', async () => {
    const key = await generateSigningKey(T);
    expect(key).toMatchObject({ alg: 'RS256', createdAt: T, retiredAt: null, expiresAt: null });
    expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(key.privateJwk).toMatchObject({ kty: 'RSA', kid: key.kid, alg: 'RS256', use: 'sig', e: 'AQAB' });
    expect(Buffer.from(key.privateJwk.n!, 'base64url')).toHaveLength(256);
    expect(typeof key.privateJwk.d).toBe('string');
    const signed = await new CompactSign(new TextEncoder().encode('hi'))
      .setProtectedHeader({ alg: 'RS256', kid: key.kid })
      .sign(await importJWK(key.privateJwk, 'RS256'));
    const { n, e, kty } = key.privateJwk;
    const verified = await compactVerify(signed, await importJWK({ kty, n, e } as JWK, 'RS256'));
    expect(new TextDecoder().decode(verified.payload)).toBe('hi');
  });
});

describe('keySetFingerprint', () => {
  it('depends on the kids and their order only', () => {
    const a = keySetFingerprint([{ kid: 'a' }, { kid: 'b' }]);
    expect(keySetFingerprint([{ kid: 'a' }, { kid: 'b' }])).toBe(a);
    expect(keySetFingerprint([{ kid: 'b' }, { kid: 'a' }])).not.toBe(a);
    expect(keySetFingerprint([{ kid: 'a' }])).not.toBe(a);
    expect(keySetFingerprint([])).not.toBe(a);
  });
});

describe.each(TEST_ENGINES)('signing keys on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const store = (): KeyStore => createKeyStore(database.db, box);

  it('key store keeps the private JWK sealed and round-trips it', async () => {
    const key = await generateSigningKey(T - 10 * HOUR);
    await store().insert(key);
    expect(await store().list()).toEqual([key]);
    const raw = await database.db.selectFrom('signing_keys').selectAll().executeTakeFirstOrThrow();
    expect(raw.private_jwk_sealed).toMatch(/^v1\./);
    expect(raw.private_jwk_sealed).not.toContain(key.privateJwk.d);
    expect(await store().remove(key.kid)).toBe(true);
    expect(await store().remove(key.kid)).toBe(false);
    expect(await store().list()).toEqual([]);
  });

  it('ensureSigningKey creates one key, once', async () => {
    await ensureSigningKey(store(), T);
    await ensureSigningKey(store(), T + 1);
    const keys = await store().list();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ createdAt: T, retiredAt: null, expiresAt: null });
    const jwks = await loadSigningJwks(store(), T);
    expect(jwks.keys.map((k) => k.kid)).toEqual([keys[0]!.kid]);
  });

  it('rotation puts the new key first and keeps the retired one until it expires', async () => {
    const [first] = await store().list();
    const rotated = await rotateSigningKeys(store(), { nowMs: T + HOUR, keepForSeconds: 7200 });
    expect(rotated.retired).toEqual([first!.kid]);
    expect(rotated.kid).not.toBe(first!.kid);

    const keys = await store().list();
    expect(keys.map((k) => [k.kid, k.createdAt, k.retiredAt, k.expiresAt])).toEqual([
      [rotated.kid, T + HOUR, null, null],
      [first!.kid, T, T + HOUR, T + 3 * HOUR],
    ]);
    const before = await loadSigningJwks(store(), T + HOUR);
    expect(before.keys.map((k) => k.kid)).toEqual([rotated.kid, first!.kid]);
    expect(before.keys[0]!.d).toBeTypeOf('string');

    const second = await rotateSigningKeys(store(), { nowMs: T + 2 * HOUR, keepForSeconds: 7200 });
    expect(second.retired).toEqual([rotated.kid]);
    const during = await loadSigningJwks(store(), T + 3 * HOUR - 1);
    expect(during.keys.map((k) => k.kid)).toEqual([second.kid, rotated.kid, first!.kid]);
    expect(keySetFingerprint(during.keys)).not.toBe(keySetFingerprint(before.keys));

    // At expiresAt the first key is dropped from the set and deleted from the store.
    const after = await loadSigningJwks(store(), T + 3 * HOUR);
    expect(after.keys.map((k) => k.kid)).toEqual([second.kid, rotated.kid]);
    expect((await store().list()).map((k) => k.kid)).toEqual([second.kid, rotated.kid]);
    expect(keySetFingerprint(after.keys)).not.toBe(keySetFingerprint(during.keys));
    expect(keySetFingerprint((await loadSigningJwks(store(), T + 3 * HOUR + 1)).keys)).toBe(keySetFingerprint(after.keys));

    // ensureSigningKey leaves a set with an active key alone.
    await ensureSigningKey(store(), T + 4 * HOUR);
    expect((await store().list()).map((k) => k.kid)).toEqual([second.kid, rotated.kid]);
  });

  it('an active key stays first even when a retired key is newer', async () => {
    for (const key of await store().list()) await store().remove(key.kid);
    const active = await generateSigningKey(T);
    const retired = { ...(await generateSigningKey(T + 1)), retiredAt: T + 2, expiresAt: T + HOUR };
    await store().insert(retired);
    await store().insert(active);
    expect((await loadSigningJwks(store(), T + 3)).keys.map((k) => k.kid)).toEqual([active.kid, retired.kid]);
  });
});
