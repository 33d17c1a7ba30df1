/**
 * The rekey's write (secrets/sealed-columns.ts replaceSealed) and the start-up check
 * (secrets/sealed-survey.ts), on SQLite and PostgreSQL: a value a running server changed since
 * it was read is left as the server wrote it (compare-and-set); a server whose keyring cannot
 * open the sealed secrets refuses to start with one line naming them, never a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINES } from '@gatehouse/db/testing';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { secretBoxKeyId } from '../../src/crypto/secret-box.ts';
import { ensureSigningKey } from '../../src/keys/signing-keys.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { replaceSealed, SEALED_COLUMNS } from '../../src/secrets/sealed-columns.ts';
import { SealedSecretsError } from '../../src/secrets/sealed-survey.ts';
import { createAuthServices } from '../../src/services.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';

const OLD = randomBytes(32);
const NEW = randomBytes(32);
const b64 = (key: Buffer) => key.toString('base64url');
const appDir = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-rekey-'));
  dirs.push(dir);
  return dir;
}

const expected = (kid: string, holds: string) =>
  `cannot decrypt 1 of 1 private signing keys (signing_keys.private_jwk_sealed) under key ${secretBoxKeyId(OLD)}: the keyring AUTH_ENCRYPTION_KEYS holds key ${holds}. ` +
  'Add the key that sealed them to AUTH_ENCRYPTION_KEYS (after the key that seals), or, if it is lost, run `authctl secrets recover-lost-key` (see apps/auth/README.md, Secrets at rest)' +
  kid;

describe.each(TEST_ENGINES)('sealed secrets on %s', (engine) => {
  it('a rekey write lands only on the value it read', async () => {
    const target = await createTestDatabase(engine);
    const database = await openAuthDatabase(target.url);
    try {
      const services = createAuthServices(loadConfig({ AUTH_DATA_DIR: tempDir(), AUTH_COOKIE_KEYS: 'c'.repeat(32), AUTH_ENCRYPTION_KEYS: `${b64(NEW)},${b64(OLD)}` }), database);
      const account = await services.accounts.create({ username: 'ann', email: 'ann@example.com', name: 'Ann', groups: [], passwordHash: 'x' });
      await services.accounts.setTotpSecret(account.id, 'FIRSTSECRET');
      const column = SEALED_COLUMNS.find((c) => c.column === 'totp_secret_sealed')!;
      const read = await database.db.selectFrom('accounts').select('totp_secret_sealed').where('id', '=', account.id).executeTakeFirstOrThrow();
      const row = { rowKey: account.id, sealed: read.totp_secret_sealed! };
      // A server re-enrols ann after the rekey read her row: the rekey's write must not undo it.
      await services.accounts.setTotpSecret(account.id, 'RE-ENROLLED');
      expect(await replaceSealed(database.db, column, row, services.box.seal('FIRSTSECRET'))).toBe(false);
      expect(await services.accounts.getTotpSecret(account.id)).toBe('RE-ENROLLED');
      const now = await database.db.selectFrom('accounts').select('totp_secret_sealed').where('id', '=', account.id).executeTakeFirstOrThrow();
      expect(await replaceSealed(database.db, column, { rowKey: account.id, sealed: now.totp_secret_sealed! }, services.box.seal('RE-ENROLLED'))).toBe(true);
    } finally {
      await database.close();
      await target.drop();
    }
  });

  it('createApp refuses a keyring that cannot open the signing keys: SealedSecretsError, one line', async () => {
    const target = await createTestDatabase(engine);
    const database = await openAuthDatabase(target.url);
    const base = { NODE_ENV: 'test', AUTH_DATABASE_URL: target.url, AUTH_DATA_DIR: tempDir(), AUTH_COOKIE_KEYS: 'c'.repeat(32), AUTH_DEV_SEED: 'false', LOG_LEVEL: 'silent' };
    try {
      await ensureSigningKey(createAuthServices(loadConfig({ ...base, AUTH_ENCRYPTION_KEY: b64(OLD) }), database).keys, Date.now());
      const config = loadConfig({ ...base, AUTH_ENCRYPTION_KEY: b64(NEW) });
      const refused = createApp(config, { database, logger: createLogger({ level: 'silent' }) });
      await expect(refused).rejects.toBeInstanceOf(SealedSecretsError);
      await expect(refused).rejects.toThrow(expected('', `${secretBoxKeyId(NEW)}`));
      // With the old key back in the ring (after the new one), it starts.
      const app = await createApp(loadConfig({ ...base, AUTH_ENCRYPTION_KEYS: `${b64(NEW)},${b64(OLD)}` }), { database, logger: createLogger({ level: 'silent' }) });
      await app.flushAudit();
    } finally {
      await database.close();
      await target.drop();
    }
  });
});

describe('node src/main.ts with a key missing from the ring', () => {
  it('exits 1 with one line on stderr, no stack trace', () => {
    const dir = tempDir();
    const env = { PATH: process.env.PATH ?? '', AUTH_DATABASE_URL: `sqlite:${join(dir, 'auth.db')}`, AUTH_DATA_DIR: dir, AUTH_COOKIE_KEYS: 'c'.repeat(32), AUTH_PORT: '0', AUTH_METRICS_PORT: '0' };
    const run = (args: string[], key: Buffer) => spawnSync(process.execPath, args, { cwd: appDir, env: { ...env, AUTH_ENCRYPTION_KEY: b64(key) }, encoding: 'utf8', timeout: 30_000 });
    const rotated = run(['src/cli/main.ts', 'keys', 'rotate'], OLD);
    expect(rotated.status).toBe(0);
    const server = run(['src/main.ts'], NEW);
    expect({ status: server.status, stdout: server.stdout, stderr: server.stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr: `auth: ${expected('\n', secretBoxKeyId(NEW))}`,
    });
  });
});
