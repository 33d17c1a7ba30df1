/**
 * `authctl user reset-mfa` and `authctl user update` (the user service's resetSecondFactors and
 * update, shared with the admin API): what they change, what they print, the operator's audit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { runCli } from '../../src/cli/run-cli.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createAuthServices, type AuthServices } from '../../src/services.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';

describe.each(TEST_ENGINES)('authctl user reset-mfa and update on %s', (engine) => {
  let dir: string;
  let target: TestDatabase;
  let env: Record<string, string | undefined>;
  const audit: Record<string, unknown>[] = [];

  async function cli(argv: string[], stdin = '') {
    let stdout = '';
    let stderr = '';
    const log = (line: string) => audit.push(...line.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>));
    const code = await runCli(argv, { stdin, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, log });
    return { code, stdout, stderr };
  }

  async function withServices<T>(fn: (services: AuthServices) => Promise<T>): Promise<T> {
    const config = loadConfig(env);
    const database = await openAuthDatabase(config.databaseUrl);
    try {
      return await fn(createAuthServices(config, database));
    } finally {
      await database.close();
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authctl-reset-mfa-'));
    target = await createTestDatabase(engine);
    env = { AUTH_DATABASE_URL: target.url, AUTH_DATA_DIR: dir, NODE_ENV: 'development' };
    expect((await cli(['user', 'add', 'alice', '--email', 'alice@example.com', '--name', 'Alice', '--password-stdin'], 'first passphrase\n')).code).toBe(0);
  });
  afterAll(async () => {
    await target.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('removes every second factor and says what it removed; a second run finds nothing', async () => {
    const id = await withServices(async (services) => {
      const account = (await services.accounts.findByUsername('alice'))!;
      await services.accounts.setTotpSecret(account.id, services.totp.generateSecret());
      const jwk = await exportJWK((await generateKeyPair('ES256', { extractable: true })).publicKey);
      await services.devices.create({ accountId: account.id, name: 'Phone', publicKey: { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! } });
      await services.devices.create({ accountId: account.id, name: 'Tablet', publicKey: { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! } });
      await services.recoveryCodes.replace(account.id);
      return account.id;
    });
    expect(await cli(['user', 'reset-mfa', 'Alice'])).toEqual({
      code: 0,
      stdout: 'reset the second factors of alice: removed TOTP, 2 devices, 0 passkeys, 10 recovery codes; 0 sessions and 0 grants ended; they enrol again at the next sign-in\n',
      stderr: '',
    });
    expect(audit.filter((l) => l.event === 'admin.user.second_factors_reset')).toEqual([
      expect.objectContaining({ actor_kind: 'operator', actor: 'cli', account_id: id, totp: true, devices: 2, passkeys: 0, recovery_codes_removed: 10 }),
    ]);
    await withServices(async (services) => {
      expect((await services.accounts.findById(id))!.totpEnrolled).toBe(false);
      expect(await services.devices.countByAccount(id)).toBe(0);
      expect(await services.recoveryCodes.remaining(id)).toBe(0);
    });
    expect((await cli(['user', 'reset-mfa', 'alice'])).stdout).toBe(
      'reset the second factors of alice: removed no TOTP, 0 devices, 0 passkeys, 0 recovery codes; 0 sessions and 0 grants ended; they enrol again at the next sign-in\n',
    );
  });

  it('an unknown user and a missing argument are refused', async () => {
    expect(await cli(['user', 'reset-mfa', 'nobody'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown user "nobody"\n' });
    expect((await cli(['user', 'reset-mfa'])).code).toBe(2);
  });

  it('update changes email, name and groups (an admin-API admin is a user in admins), audited by field name', async () => {
    expect(await cli(['user', 'update', 'alice', '--groups', 'admins, users', '--name', 'Alice A'])).toEqual({
      code: 0,
      stdout: 'updated alice: email alice@example.com, name Alice A, groups admins,users\n',
      stderr: '',
    });
    expect(audit.filter((l) => l.event === 'admin.user.updated').at(-1)).toMatchObject({ actor_kind: 'operator', actor: 'cli', fields: 'name,groups' });
    expect(JSON.parse((await cli(['user', 'update', 'alice', '--clear-groups', '--json'])).stdout)).toMatchObject({ username: 'alice', groups: [] });
    expect(await cli(['user', 'update', 'alice', '--email', 'nope'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: email must be a valid email address\n' });
    expect(await cli(['user', 'update', 'nobody', '--name', 'N'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown user "nobody"\n' });
    expect((await cli(['user', 'update', 'alice'])).stderr).toContain('give at least one of --email, --name, --groups, --clear-groups');
    expect((await cli(['user', 'update', 'alice', '--groups', 'a', '--clear-groups'])).code).toBe(2);
  });
});
