import { describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { compactVerify, CompactSign, importJWK, type JWK } from 'jose';
import { migrateToLatest, openDatabase } from '@gatehouse/db';
import { createTestDatabase, TEST_ENGINES } from '@gatehouse/db/testing';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createKeyStore, type KeyStore, type SigningKey } from '../../src/keys/key-store.ts';
import { keyPolicy, type KeyPolicy } from '../../src/keys/key-policy.ts';
import {
  ensureSigningKey,
  generateSigningKey,
  keySetFingerprint,
  keyStates,
  loadSigningJwks,
  maintainSigningKeys,
  rotateSigningKeys,
} from '../../src/keys/signing-keys.ts';
import { authMigrations } from '../../src/storage/migrations.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const box = createSecretBox(Buffer.alloc(32, 3));
const T = 1_790_000_000_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Rotation every day, published 30 min ahead, retired keys kept 2 h. */
const POLICY: KeyPolicy = { rotationIntervalMs: DAY, prepublishMs: HOUR / 2, retainMs: 2 * HOUR };

/** A key row without key material, for the pure state functions. */
function row(kid: string, fields: Partial<SigningKey> = {}): SigningKey {
  return { kid, alg: 'RS256', privateJwk: { kid }, createdAt: T, activatesAt: null, replacesKid: null, retiredAt: null, expiresAt: null, ...fields };
}

describe('keyPolicy', () => {
  it('keeps a retired key for the longest token lifetime plus reload lag plus verifier clock tolerance', () => {
    expect(keyPolicy({ accessTokenTtl: 3600, idTokenTtl: 600, keys: { rotationInterval: 2_592_000, prepublish: 1800 } })).toEqual({
      rotationIntervalMs: 2_592_000_000,
      prepublishMs: 1_800_000,
      retainMs: (3600 + 300) * 1000 + 5000,
    });
    expect(keyPolicy({ accessTokenTtl: 300, idTokenTtl: 7200, keys: { rotationInterval: null, prepublish: 900 } })).toEqual({
      rotationIntervalMs: null,
      prepublishMs: 900_000,
      retainMs: (7200 + 300) * 1000 + 5000,
    });
  });
});

describe('generateSigningKey', () => {
  it('creates an extractable RS256 2048-bit private JWK whose kid is its thumbprint', async () => {
    const key = await generateSigningKey(T);
    expect(key).toMatchObject({ alg: 'RS256', createdAt: T, activatesAt: null, replacesKid: null, retiredAt: null, expiresAt: null });
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

  it('can be scheduled to activate later as the successor of a key', async () => {
    const key = await generateSigningKey(T, { activatesAt: T + HOUR, replacesKid: 'old' });
    expect(key).toMatchObject({ createdAt: T, activatesAt: T + HOUR, replacesKid: 'old', retiredAt: null, expiresAt: null });
  });
});

describe('keySetFingerprint', () => {
  it('depends on the kids, their order and their states', () => {
    const a = keySetFingerprint([
      { kid: 'a', state: 'active' },
      { kid: 'b', state: 'pending' },
    ]);
    expect(keySetFingerprint([{ kid: 'a', state: 'active' }, { kid: 'b', state: 'pending' }])).toBe(a);
    expect(keySetFingerprint([{ kid: 'b', state: 'pending' }, { kid: 'a', state: 'active' }])).not.toBe(a);
    expect(keySetFingerprint([{ kid: 'a', state: 'active' }, { kid: 'b', state: 'retired' }])).not.toBe(a);
    expect(keySetFingerprint([{ kid: 'a', state: 'active' }])).not.toBe(a);
    expect(keySetFingerprint([])).not.toBe(a);
  });
});

describe('keyStates', () => {
  const view = (keys: SigningKey[], now: number) => keyStates(keys, now).map((s) => [s.key.kid, s.state, s.activatesAt, s.supersededAt]);

  it('a pending key is published after the active one and signs from its activation on', () => {
    const keys = [row('a'), row('p', { createdAt: T + DAY, activatesAt: T + DAY + HOUR, replacesKid: 'a' })];
    expect(view(keys, T + DAY)).toEqual([
      ['a', 'active', T, undefined],
      ['p', 'pending', T + DAY + HOUR, undefined],
    ]);
    expect(view(keys, T + DAY + HOUR - 1)).toEqual(view(keys, T + DAY));
    // At its activation the successor signs and the old key is superseded, with no write.
    expect(view(keys, T + DAY + HOUR)).toEqual([
      ['p', 'active', T + DAY + HOUR, undefined],
      ['a', 'retired', T, T + DAY + HOUR],
    ]);
  });

  it('orders active, pending (soonest first), retired (most recently active first), expired', () => {
    const keys = [
      row('gone', { createdAt: T - 3 * DAY, retiredAt: T - 2 * DAY, expiresAt: T }),
      row('old', { createdAt: T - 2 * DAY, retiredAt: T - DAY, expiresAt: T + HOUR }),
      row('older', { createdAt: T - 3 * DAY + 1, retiredAt: T - 2 * DAY, expiresAt: T + HOUR }),
      row('now', { createdAt: T - DAY }),
      row('later', { createdAt: T, activatesAt: T + 2 * HOUR }),
      row('soon', { createdAt: T, activatesAt: T + HOUR }),
    ];
    expect(view(keys, T).map(([kid, state]) => [kid, state])).toEqual([
      ['now', 'active'],
      ['soon', 'pending'],
      ['later', 'pending'],
      ['old', 'retired'],
      ['older', 'retired'],
      ['gone', 'expired'],
    ]);
  });

  it('an active key stays first even when a retired key is newer', () => {
    const keys = [row('retired', { createdAt: T + 1, retiredAt: T + 2, expiresAt: T + HOUR }), row('active')];
    expect(view(keys, T + 3).map(([kid, state]) => [kid, state])).toEqual([
      ['active', 'active'],
      ['retired', 'retired'],
    ]);
  });
});

describe.each(TEST_ENGINES)('signing keys on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const store = (): KeyStore => createKeyStore(database.db, box);
  const clear = async () => {
    for (const key of await store().list()) await store().remove(key.kid);
  };
  const kids = async () => (await store().list()).map((k) => k.kid);

  it('key store keeps the private JWK sealed and round-trips every field', async () => {
    const key = await generateSigningKey(T - 10 * HOUR, { activatesAt: T, replacesKid: 'previous' });
    expect(await store().insert(key)).toBe(true);
    expect(await store().list()).toEqual([key]);
    const raw = await database.db.selectFrom('signing_keys').selectAll().executeTakeFirstOrThrow();
    expect(raw.private_jwk_sealed).toMatch(/^v2\.[A-Za-z0-9_-]{8}\./);
    expect(raw.private_jwk_sealed).not.toContain(key.privateJwk.d);
    expect(raw).toMatchObject({ activates_at: T, replaces_kid: 'previous' });
    expect(await store().remove(key.kid)).toBe(true);
    expect(await store().remove(key.kid)).toBe(false);
    expect(await store().list()).toEqual([]);
  });

  it('stores at most one successor per key', async () => {
    const first = await generateSigningKey(T, { activatesAt: T + HOUR, replacesKid: 'a' });
    const second = await generateSigningKey(T, { activatesAt: T + HOUR, replacesKid: 'a' });
    expect(await store().insert(first)).toBe(true);
    expect(await store().insert(second)).toBe(false);
    expect(await kids()).toEqual([first.kid]);
    // Keys that replace nothing never collide.
    const loose = [await generateSigningKey(T + 1), await generateSigningKey(T + 2)];
    for (const key of loose) expect(await store().insert(key)).toBe(true);
    expect((await kids()).sort()).toEqual([first.kid, ...loose.map((k) => k.kid)].sort());
    await clear();
  });

  it('ensureSigningKey creates one active key, once', async () => {
    await ensureSigningKey(store(), T);
    await ensureSigningKey(store(), T + 1);
    const keys = await store().list();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ createdAt: T, activatesAt: null, replacesKid: null, retiredAt: null, expiresAt: null });
    const jwks = await loadSigningJwks(store(), T);
    expect(jwks.keys.map((k) => k.kid)).toEqual([keys[0]!.kid]);
    expect(jwks.signingKid).toBe(keys[0]!.kid);
    await clear();
  });

  it('two instances starting together on an empty key table store exactly one first key', async () => {
    const instances = [await openAuthDatabase(database.url), await openAuthDatabase(database.url)];
    try {
      const stores = instances.map((d) => createKeyStore(d.db, box));
      for (let round = 0; round < 3; round++) {
        await Promise.all(stores.map((s) => ensureSigningKey(s, T)));
        const keys = await store().list();
        expect(keys).toHaveLength(1);
        // Both instances load the same single key, so neither signs with a key the other does not publish.
        const loaded = await Promise.all(stores.map((s) => loadSigningJwks(s, T)));
        expect(loaded.map((j) => j.signingKid)).toEqual([keys[0]!.kid, keys[0]!.kid]);
        await clear();
      }
    } finally {
      await Promise.all(instances.map((d) => d.close()));
    }
  });

  it('manual rotation: the new key signs at once, the old one is kept until it expires', async () => {
    await ensureSigningKey(store(), T);
    const [first] = await store().list();
    const rotated = await rotateSigningKeys(store(), { nowMs: T + HOUR, retainMs: 2 * HOUR });
    expect(rotated).toEqual({ kid: expect.any(String), retired: [first!.kid], discarded: [], retiredExpireAt: T + 3 * HOUR });
    expect(rotated.kid).not.toBe(first!.kid);

    const keys = await store().list();
    expect(keys.map((k) => [k.kid, k.createdAt, k.activatesAt, k.retiredAt, k.expiresAt])).toEqual([
      [rotated.kid, T + HOUR, null, null, null],
      [first!.kid, T, null, T + HOUR, T + 3 * HOUR],
    ]);
    const before = await loadSigningJwks(store(), T + HOUR);
    expect(before.keys.map((k) => k.kid)).toEqual([rotated.kid, first!.kid]);
    expect(before.signingKid).toBe(rotated.kid);
    expect(before.keys[0]!.d).toBeTypeOf('string');

    const second = await rotateSigningKeys(store(), { nowMs: T + 2 * HOUR, retainMs: 2 * HOUR });
    expect(second.retired).toEqual([rotated.kid]);
    const during = await loadSigningJwks(store(), T + 3 * HOUR - 1);
    expect(during.keys.map((k) => k.kid)).toEqual([second.kid, rotated.kid, first!.kid]);
    expect(during.fingerprint).not.toBe(before.fingerprint);

    // At expiresAt the first key leaves the set; maintenance deletes it from the store.
    const after = await loadSigningJwks(store(), T + 3 * HOUR);
    expect(after.keys.map((k) => k.kid)).toEqual([second.kid, rotated.kid]);
    expect(after.fingerprint).not.toBe(during.fingerprint);
    expect(await maintainSigningKeys(store(), { ...POLICY, rotationIntervalMs: null }, T + 3 * HOUR)).toEqual({ scheduled: null, retired: [], removed: [first!.kid] });
    expect(await kids()).toEqual([second.kid, rotated.kid]);
    expect((await loadSigningJwks(store(), T + 3 * HOUR + 1)).fingerprint).toBe(after.fingerprint);

    // ensureSigningKey leaves a set with an active key alone.
    await ensureSigningKey(store(), T + 4 * HOUR);
    expect(await kids()).toEqual([second.kid, rotated.kid]);
    await clear();
  });

  it('manual rotation drops a pending key, which never signed', async () => {
    await ensureSigningKey(store(), T);
    const [active] = await store().list();
    const { scheduled } = await maintainSigningKeys(store(), POLICY, T + DAY);
    expect(scheduled).not.toBeNull();
    const rotated = await rotateSigningKeys(store(), { nowMs: T + DAY + 1, retainMs: 2 * HOUR });
    expect(rotated).toEqual({ kid: expect.any(String), retired: [active!.kid], discarded: [scheduled!.kid], retiredExpireAt: T + DAY + 1 + 2 * HOUR });
    expect((await loadSigningJwks(store(), T + DAY + 1)).keys.map((k) => k.kid)).toEqual([rotated.kid, active!.kid]);
    // The new key is fresh: nothing is due until it is interval − prepublish old.
    expect(await maintainSigningKeys(store(), POLICY, T + DAY + 1 + DAY - HOUR / 2 - 1)).toEqual({ scheduled: null, retired: [], removed: [active!.kid] });
    await clear();
  });

  it('scheduled rotation: pre-publication, activation, retirement, removal', async () => {
    await ensureSigningKey(store(), T);
    const [a] = await store().list();
    const due = T + DAY - HOUR / 2;

    // (a) Before interval − prepublish nothing happens.
    expect(await maintainSigningKeys(store(), POLICY, due - 1)).toEqual({ scheduled: null, retired: [], removed: [] });
    expect(await kids()).toEqual([a!.kid]);

    // (b) Then a pending key appears, published after the signing key; only one.
    const { scheduled: p } = await maintainSigningKeys(store(), POLICY, due);
    expect(p).toMatchObject({ createdAt: due, activatesAt: T + DAY, replacesKid: a!.kid, retiredAt: null, expiresAt: null });
    expect(await maintainSigningKeys(store(), POLICY, due + HOUR / 4)).toEqual({ scheduled: null, retired: [], removed: [] });
    const prepublished = await loadSigningJwks(store(), T + DAY - 1);
    expect(prepublished.keys.map((k) => k.kid)).toEqual([a!.kid, p!.kid]);
    expect(prepublished.signingKid).toBe(a!.kid);

    // (c) At activation the new key signs: same rows, new order, new fingerprint.
    const activated = await loadSigningJwks(store(), T + DAY);
    expect(activated.keys.map((k) => k.kid)).toEqual([p!.kid, a!.kid]);
    expect(activated.signingKid).toBe(p!.kid);
    expect(activated.fingerprint).not.toBe(prepublished.fingerprint);
    // Maintenance records the retirement at the successor's activation, once.
    expect(await maintainSigningKeys(store(), POLICY, T + DAY + 3000)).toEqual({ scheduled: null, retired: [a!.kid], removed: [] });
    expect(await maintainSigningKeys(store(), POLICY, T + DAY + 6000)).toEqual({ scheduled: null, retired: [], removed: [] });
    expect((await store().list()).map((k) => [k.kid, k.retiredAt, k.expiresAt])).toEqual([
      [p!.kid, null, null],
      [a!.kid, T + DAY, T + DAY + 2 * HOUR],
    ]);
    expect((await loadSigningJwks(store(), T + DAY + 6000)).fingerprint).toBe(activated.fingerprint);

    // (d) At expiresAt the old key is gone.
    expect((await loadSigningJwks(store(), T + DAY + 2 * HOUR - 1)).keys.map((k) => k.kid)).toEqual([p!.kid, a!.kid]);
    expect(await maintainSigningKeys(store(), POLICY, T + DAY + 2 * HOUR)).toEqual({ scheduled: null, retired: [], removed: [a!.kid] });
    expect((await loadSigningJwks(store(), T + DAY + 2 * HOUR)).keys.map((k) => k.kid)).toEqual([p!.kid]);

    // The successor's own rotation is due interval − prepublish after its activation.
    expect((await maintainSigningKeys(store(), POLICY, T + 2 * DAY - HOUR / 2 - 1)).scheduled).toBeNull();
    expect((await maintainSigningKeys(store(), POLICY, T + 2 * DAY - HOUR / 2)).scheduled).toMatchObject({ activatesAt: T + 2 * DAY, replacesKid: p!.kid });
    await clear();
  });

  it('a superseded key found long after its successor activated is removed, not retired', async () => {
    await ensureSigningKey(store(), T);
    const [a] = await store().list();
    const { scheduled: p } = await maintainSigningKeys(store(), POLICY, T + DAY - HOUR / 2);
    expect(await maintainSigningKeys(store(), POLICY, T + DAY + 2 * HOUR)).toEqual({ scheduled: null, retired: [], removed: [a!.kid] });
    expect(await kids()).toEqual([p!.kid]);
    await clear();
  });

  it('(e) with rotation off nothing is ever scheduled', async () => {
    await ensureSigningKey(store(), T);
    const [a] = await store().list();
    const manual = { ...POLICY, rotationIntervalMs: null };
    expect(await maintainSigningKeys(store(), manual, T + 365 * DAY)).toEqual({ scheduled: null, retired: [], removed: [] });
    expect(await kids()).toEqual([a!.kid]);
    await clear();
  });

  it('(f) two instances checking at the same instant schedule exactly one key', async () => {
    // Two pools (or two SQLite connections) on the same database, like two server instances.
    const instances = [await openAuthDatabase(database.url), await openAuthDatabase(database.url)];
    try {
      const stores = instances.map((d) => createKeyStore(d.db, box));
      await ensureSigningKey(stores[0]!, T);
      let active = (await store().list())[0]!;
      for (let round = 0; round < 3; round++) {
        const due = (active.activatesAt ?? active.createdAt) + DAY - HOUR / 2;
        const results = await Promise.all(stores.map((s) => maintainSigningKeys(s, POLICY, due)));
        const scheduled = results.flatMap((r) => (r.scheduled ? [r.scheduled] : []));
        expect(scheduled).toHaveLength(1);
        const keys = await store().list();
        expect(keys.filter((k) => k.replacesKid === active.kid).map((k) => k.kid)).toEqual([scheduled[0]!.kid]);
        expect((await loadSigningJwks(store(), due)).keys.map((k) => k.kid)).toEqual([active.kid, scheduled[0]!.kid]);
        active = scheduled[0]!;
      }
    } finally {
      for (const instance of instances) await instance.close();
    }
    await clear();
  });
});

describe.each(TEST_ENGINES)('migration 009 on %s', (engine) => {
  it('keeps keys created before it active since their creation', async () => {
    const fresh = await createTestDatabase(engine);
    const raw = openDatabase(fresh.url);
    try {
      const before = Object.fromEntries(Object.entries(authMigrations).filter(([name]) => name < '009'));
      await migrateToLatest(raw.db as Kysely<unknown>, 'auth', before);
      const key = await generateSigningKey(T);
      await (raw.db as Kysely<Record<string, Record<string, unknown>>>)
        .insertInto('signing_keys')
        .values({ kid: key.kid, alg: 'RS256', private_jwk_sealed: box.seal(JSON.stringify(key.privateJwk)), created_at: T, retired_at: null, expires_at: null })
        .execute();
      expect(await migrateToLatest(raw.db as Kysely<unknown>, 'auth', authMigrations)).toEqual(Object.keys(authMigrations).filter((name) => name >= '009'));
      const upgraded = await openAuthDatabase(fresh.url);
      try {
        const keys = await createKeyStore(upgraded.db, box).list();
        expect(keys).toEqual([{ ...key, activatesAt: null, replacesKid: null }]);
        expect((await loadSigningJwks(createKeyStore(upgraded.db, box), T + 1)).signingKid).toBe(key.kid);
      } finally {
        await upgraded.close();
      }
    } finally {
      await raw.close();
      await fresh.drop();
    }
  });
});
