/**
 * The encryption-key lifecycle through authctl, on SQLite and PostgreSQL: a keyring with a new
 * key first, `secrets rekey` (dry run, progress, final count, resumable, legacy values without
 * a key id included), the old key dropped, a wrong key reported as one line, and the recovery
 * from a lost key (`secrets recover-lost-key`): users' second factors reset, signing keys
 * re-created, client secrets re-issued and printed once, identity providers with a lost
 * credential disabled until the operator sets a new one.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { runCli } from '../../src/cli/run-cli.ts';
import { loadConfig } from '../../src/config/config.ts';
import { secretBoxKeyId } from '../../src/crypto/secret-box.ts';
import { ensureSigningKey } from '../../src/keys/signing-keys.ts';
import { checkSealedSecrets } from '../../src/secrets/sealed-survey.ts';
import { createAuthServices, type AuthServices } from '../../src/services.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';
import type { AuthSchema } from '../../src/storage/schema.ts';
import type { Kysely } from 'kysely';

const NOW = Date.parse('2026-11-21T12:00:00.000Z');
const OLD = randomBytes(32);
const NEW = randomBytes(32);
const OTHER = randomBytes(32);
const id = secretBoxKeyId;
const b64 = (key: Buffer) => key.toString('base64url');

/** A value in the legacy form (no key id), as sealed before the keyring. */
function legacySeal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, ciphertext, cipher.getAuthTag()].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

describe.each(TEST_ENGINES)('authctl secrets on %s', (engine) => {
  let dir: string;
  let target: TestDatabase;
  const audit: Record<string, unknown>[] = [];
  const secrets: Record<string, string> = {};

  const env = (ring: Buffer[]) => ({
    NODE_ENV: 'development',
    AUTH_DATABASE_URL: target.url,
    AUTH_DATA_DIR: dir,
    AUTH_COOKIE_KEYS: 'c'.repeat(32),
    AUTH_ENCRYPTION_KEYS: ring.map(b64).join(','),
  });

  async function cli(ring: Buffer[], argv: string[]) {
    let stdout = '';
    let stderr = '';
    const log = (line: string) => audit.push(...line.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>));
    const code = await runCli(argv, { stdin: '', stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: env(ring), clock: () => NOW, log });
    return { code, stdout, stderr };
  }

  async function withServices<T>(ring: Buffer[], fn: (services: AuthServices, db: Kysely<AuthSchema>) => Promise<T>): Promise<T> {
    const config = loadConfig(env(ring));
    const database = await openAuthDatabase(config.databaseUrl);
    try {
      return await fn(createAuthServices(config, database, () => NOW), database.db);
    } finally {
      await database.close();
    }
  }

  const status = async (ring: Buffer[]) => JSON.parse((await cli(ring, ['secrets', 'status', '--json'])).stdout) as { key_id: string; columns: { column: string; total: number; by_key: Record<string, number>; unreadable: Record<string, number> }[] };
  const byColumn = (s: Awaited<ReturnType<typeof status>>) => Object.fromEntries(s.columns.map((c) => [c.column, { by_key: c.by_key, unreadable: c.unreadable }]));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authctl-secrets-'));
    target = await createTestDatabase(engine);
    // Everything sealed under OLD; bob's TOTP secret in the legacy form, from before key ids.
    await withServices([OLD], async (services, db) => {
      const { accounts, clients, keys, totp, devices } = services;
      for (const username of ['alice', 'bob', 'carol']) await accounts.create({ username, email: `${username}@example.com`, name: username, groups: [], passwordHash: 'x' });
      const alice = (await accounts.findByUsername('alice'))!;
      secrets.alice = totp.generateSecret();
      await accounts.setTotpSecret(alice.id, secrets.alice);
      const jwk = await exportJWK((await generateKeyPair('ES256', { extractable: true })).publicKey);
      await devices.create({ accountId: alice.id, name: 'Phone', publicKey: { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! } });
      secrets.bob = totp.generateSecret();
      await db.updateTable('accounts').set({ totp_secret_sealed: legacySeal(OLD, secrets.bob) }).where('username', '=', 'bob').execute();
      secrets.svc = 'svc-secret-0123456789-abcdefghij';
      await clients.create({ clientId: 'svc', name: 'Service', redirectUris: [], grantTypes: ['client_credentials'], clientSecret: secrets.svc });
      await clients.create({ clientId: 'rotated', name: 'Rotated', redirectUris: [], grantTypes: ['client_credentials'], clientSecret: 'rotated-secret-0123456789-abcdef' });
      secrets.rotated = (await clients.rotateSecret('rotated', 3_600_000)).clientSecret;
      await ensureSigningKey(keys, NOW);
      await services.identityProviderStore.create(
        {
          slug: 'acme',
          displayName: 'Acme SSO',
          kind: 'oidc',
          preset: 'oidc',
          enabled: true,
          issuer: 'https://idp.acme.example',
          clientId: 'gatehouse',
          tokenEndpointAuthMethod: 'client_secret_basic',
          scopes: ['openid'],
          useUserinfo: false,
          claims: { subject: 'sub', username: 'preferred_username', email: 'email', emailVerified: 'email_verified', name: 'name' },
          trustEmail: false,
          groupMappings: [],
          provisioning: 'just_in_time',
          mfaPolicy: 'always_local',
          mfaAcceptedAmr: [],
          mfaAcceptedAcr: [],
          homeRealmDomains: [],
        },
        { clientSecret: 'acme-upstream-secret' },
      );
    });
  });
  afterAll(async () => {
    await target.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('status counts the sealed secrets by key, legacy values apart', async () => {
    const s = await status([OLD]);
    expect(s.key_id).toBe(id(OLD));
    expect(byColumn(s)).toEqual({
      'signing_keys.private_jwk_sealed': { by_key: { [id(OLD)]: 1 }, unreadable: {} },
      'accounts.totp_secret_sealed': { by_key: { [id(OLD)]: 1, v1: 1 }, unreadable: {} },
      'clients.client_secret_sealed': { by_key: { [id(OLD)]: 2 }, unreadable: {} },
      'clients.previous_secret_sealed': { by_key: { [id(OLD)]: 1 }, unreadable: {} },
      'identity_providers.client_secret_sealed': { by_key: { [id(OLD)]: 1 }, unreadable: {} },
      'identity_providers.private_jwk_sealed': { by_key: {}, unreadable: {} },
      'totp_enrollments.secret_sealed': { by_key: {}, unreadable: {} },
      'totp_enrollments.recovery_codes_sealed': { by_key: {}, unreadable: {} },
    });
    const text = await cli([OLD], ['secrets', 'status']);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n').slice(0, 3)).toEqual([`keyring: ${id(OLD)} (seals)`, 'COLUMN                                   KEY                 SECRETS', `signing_keys.private_jwk_sealed          ${id(OLD)} (seals)    1`]);
    expect(text.stdout).toContain('\naccounts.totp_secret_sealed              legacy (no key id)  1\n');
  });

  it('rekey --dry-run counts what it would re-encrypt and changes nothing', async () => {
    const dry = await cli([NEW, OLD], ['secrets', 'rekey', '--dry-run']);
    expect(dry).toEqual({
      code: 0,
      stdout: [
        'signing_keys.private_jwk_sealed: would re-encrypt 1 of 1',
        'accounts.totp_secret_sealed: would re-encrypt 2 of 2',
        'clients.client_secret_sealed: would re-encrypt 2 of 2',
        'clients.previous_secret_sealed: would re-encrypt 1 of 1',
        'identity_providers.client_secret_sealed: would re-encrypt 1 of 1',
        `would re-encrypt 7 secrets under key ${id(NEW)}`,
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(byColumn(await status([NEW, OLD]))['accounts.totp_secret_sealed']!.by_key).toEqual({ [id(OLD)]: 1, v1: 1 });
  });

  it('rekey re-encrypts everything under the first key, once: a second run finds nothing', async () => {
    const run = await cli([NEW, OLD], ['secrets', 'rekey']);
    expect(run).toEqual({
      code: 0,
      stdout: [
        'signing_keys.private_jwk_sealed: re-encrypted 1 of 1',
        'accounts.totp_secret_sealed: re-encrypted 2 of 2',
        'clients.client_secret_sealed: re-encrypted 2 of 2',
        'clients.previous_secret_sealed: re-encrypted 1 of 1',
        'identity_providers.client_secret_sealed: re-encrypted 1 of 1',
        `re-encrypted 7 secrets under key ${id(NEW)}`,
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(audit.filter((l) => l.event === 'secrets.rekeyed')).toEqual([expect.objectContaining({ actor_kind: 'operator', actor: 'cli', key_id: id(NEW), rekeyed: 7, unreadable: 0 })]);
    expect(await cli([NEW, OLD], ['secrets', 'rekey'])).toEqual({ code: 0, stdout: `re-encrypted 0 secrets under key ${id(NEW)}\n`, stderr: '' });

    // The old key can go: the new one alone opens everything, and every secret is what it was.
    expect(byColumn(await status([NEW]))).toEqual({
      'signing_keys.private_jwk_sealed': { by_key: { [id(NEW)]: 1 }, unreadable: {} },
      'accounts.totp_secret_sealed': { by_key: { [id(NEW)]: 2 }, unreadable: {} },
      'clients.client_secret_sealed': { by_key: { [id(NEW)]: 2 }, unreadable: {} },
      'clients.previous_secret_sealed': { by_key: { [id(NEW)]: 1 }, unreadable: {} },
      'identity_providers.client_secret_sealed': { by_key: { [id(NEW)]: 1 }, unreadable: {} },
      'identity_providers.private_jwk_sealed': { by_key: {}, unreadable: {} },
      'totp_enrollments.secret_sealed': { by_key: {}, unreadable: {} },
      'totp_enrollments.recovery_codes_sealed': { by_key: {}, unreadable: {} },
    });
    await withServices([NEW], async (services, db) => {
      const { accounts, clients, keys, box } = services;
      await checkSealedSecrets(db, box);
      expect(await accounts.getTotpSecret((await accounts.findByUsername('alice'))!.id)).toBe(secrets.alice);
      expect(await accounts.getTotpSecret((await accounts.findByUsername('bob'))!.id)).toBe(secrets.bob);
      expect((await clients.find('svc'))!.clientSecret).toBe(secrets.svc);
      expect((await clients.find('rotated'))!.clientSecret).toBe(secrets.rotated);
      expect((await clients.find('rotated'))!.previousClientSecret).toBe('rotated-secret-0123456789-abcdef');
      expect(await keys.list()).toHaveLength(1);
      expect(await services.identityProviderStore.credentials('acme')).toEqual({ clientSecret: 'acme-upstream-secret' });
      // A client whose replaced secret will be sealed under NEW and its current under OTHER (below).
      await clients.create({ clientId: 'late', name: 'Late', redirectUris: [], grantTypes: ['client_credentials'], clientSecret: 'late-secret-0123456789-abcdefghij' });
    });
  });

  it('a key missing from the ring is one line naming what cannot be decrypted and what to do', async () => {
    const line =
      `authctl: error: cannot decrypt 1 of 1 private signing keys (signing_keys.private_jwk_sealed) under key ${id(NEW)}; ` +
      `2 of 2 TOTP secrets (accounts.totp_secret_sealed) under key ${id(NEW)}; 3 of 3 client secrets (clients.client_secret_sealed) under key ${id(NEW)}; ` +
      `1 of 1 replaced client secrets in their grace period (clients.previous_secret_sealed) under key ${id(NEW)}; ` +
      `1 of 1 client secrets of upstream identity providers (identity_providers.client_secret_sealed) under key ${id(NEW)}: the keyring AUTH_ENCRYPTION_KEYS holds key ${id(OTHER)}. ` +
      'Add the key that sealed them to AUTH_ENCRYPTION_KEYS (after the key that seals), or, if it is lost, run `authctl secrets recover-lost-key` (see apps/auth/README.md, Secrets at rest)\n';
    const wrong = await cli([OTHER], ['secrets', 'status']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(line);
    const rekey = await cli([OTHER], ['secrets', 'rekey']);
    expect(rekey.code).toBe(1);
    expect(rekey.stdout.split('\n').at(-2)).toBe(`re-encrypted 0 secrets under key ${id(OTHER)}`);
    expect(rekey.stderr).toBe(line.replace(/ of \d+/g, ''));
    expect(rekey.stderr).not.toContain('SecretBoxError');
  });

  it('recover-lost-key: a dry run first, then users reset, signing keys re-created, client secrets re-issued once', async () => {
    // OTHER becomes the sealing key while NEW is still known: `late` gets a new secret, its replaced one stays under NEW.
    await withServices([OTHER, NEW], async ({ clients }) => {
      secrets.late = (await clients.rotateSecret('late', 3_600_000)).clientSecret;
    });
    // Then NEW is lost.
    expect(await cli([OTHER], ['secrets', 'recover-lost-key'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'authctl: error: secrets recover-lost-key: give --dry-run to see what would be reset, or --yes to reset it (second factors, signing keys and client secrets sealed under a key that is not in AUTH_ENCRYPTION_KEYS) (run "authctl help" for usage)\n',
    });
    expect(await cli([OTHER], ['secrets', 'recover-lost-key', '--dry-run'])).toEqual({
      code: 0,
      stdout: [
        'would reset the second factors of 2 users (alice, bob); they enrol again at the next sign-in',
        `would delete 1 signing key (${(await withServices([NEW, OTHER], async ({ keys }) => (await keys.list())[0]!.kid))})`,
        'client rotated: would get a new secret',
        'client svc: would get a new secret',
        'client late: would drop its replaced secret (the grace period ends); its current secret is kept',
        'identity provider acme: would remove its lost client secret or private key and disable it; set a new one with authctl idp update acme, then --enable',
        '',
      ].join('\n'),
      stderr: '',
    });
    const recovered = await cli([OTHER], ['secrets', 'recover-lost-key', '--yes', '--json']);
    expect(recovered.code).toBe(0);
    const result = JSON.parse(recovered.stdout) as { users: string[]; signing_keys: string[]; new_signing_key: boolean; clients: { client_id: string; client_secret?: string; previous_secret_only: boolean }[] };
    expect(result).toMatchObject({ users: ['alice', 'bob'], new_signing_key: true });
    expect(result.signing_keys).toHaveLength(1);
    expect(result.clients.map((c) => [c.client_id, c.previous_secret_only, typeof c.client_secret])).toEqual([
      ['rotated', false, 'string'],
      ['svc', false, 'string'],
      ['late', true, 'undefined'],
    ]);
    expect(audit.filter((l) => l.event === 'admin.user.second_factors_reset').map((l) => l.totp)).toEqual([true, true]);
    expect(audit.filter((l) => l.event === 'secrets.lost_key_recovered')).toEqual([expect.objectContaining({ actor_kind: 'operator', actor: 'cli', users: 2, signing_keys: 1, clients: 2, identity_providers: 1 })]);
    expect(JSON.parse(recovered.stdout).identity_providers).toEqual(['acme']);
    expect(audit.filter((l) => l.event === 'identity_provider.updated')).toEqual([expect.objectContaining({ actor_kind: 'operator', actor: 'cli', provider: 'acme', fields: 'enabled,client_secret' })]);
    expect(JSON.stringify(audit)).not.toContain(result.clients[0]!.client_secret!);

    // Everything left opens with the ring; the server's start-up check passes.
    expect((await cli([OTHER], ['secrets', 'status'])).code).toBe(0);
    await withServices([OTHER], async ({ accounts, clients, keys, devices, box }, db) => {
      await checkSealedSecrets(db, box);
      const alice = (await accounts.findByUsername('alice'))!;
      expect(alice.totpEnrolled).toBe(false);
      expect(await devices.countByAccount(alice.id)).toBe(0);
      expect((await accounts.findByUsername('carol'))!.totpEnrolled).toBe(false);
      const [key] = await keys.list();
      expect(key!.kid).not.toBe(result.signing_keys[0]);
      expect((await clients.find('svc'))!.clientSecret).toBe(result.clients[1]!.client_secret);
      expect((await clients.find('rotated'))!.clientSecret).toBe(result.clients[0]!.client_secret);
      expect((await clients.find('rotated'))!.previousClientSecret).toBeUndefined();
      expect((await clients.find('late'))!.clientSecret).toBe(secrets.late);
      expect((await clients.find('late'))!.previousClientSecret).toBeUndefined();
    });
    await withServices([OTHER], async ({ identityProviderStore }) => {
      expect(await identityProviderStore.find('acme')).toMatchObject({ enabled: false, clientSecretSet: false, updatedAt: NOW });
      expect(await identityProviderStore.credentials('acme')).toEqual({});
    });
    expect(await cli([OTHER], ['secrets', 'recover-lost-key', '--yes'])).toEqual({ code: 0, stdout: 'nothing to recover: every sealed secret opens with AUTH_ENCRYPTION_KEYS\n', stderr: '' });
  });
});
