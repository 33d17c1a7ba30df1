import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createDeviceStore } from '../../src/devices/device-store.ts';
import { createRecoveryCodeStore } from '../../src/recovery/recovery-code-store.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';

const NOW = Date.parse('2026-11-21T12:00:00.000Z');
const KEY = { kty: 'EC', crv: 'P-256', x: 'x'.repeat(43), y: 'y'.repeat(43) } as const;
let dir: string;
let env: Record<string, string | undefined>;

async function cli(argv: string[], stdin = '') {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdin, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, clock: () => NOW });
  return { code, stdout, stderr };
}

async function withStores<T>(fn: (stores: {
  accounts: ReturnType<typeof createAccountStore>;
  devices: ReturnType<typeof createDeviceStore>;
  recovery: ReturnType<typeof createRecoveryCodeStore>;
}) => Promise<T>): Promise<T> {
  const config = loadConfig(env);
  const database = await openAuthDatabase(config.databaseUrl);
  try {
    return await fn({
      accounts: createAccountStore(database.db, createSecretBox(config.encryptionKey)),
      devices: createDeviceStore(database.db, () => NOW),
      recovery: createRecoveryCodeStore(database.db),
    });
  } finally {
    await database.close();
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authctl-devices-'));
  env = { AUTH_DATABASE_URL: `sqlite:${join(dir, 'auth.db')}`, AUTH_DATA_DIR: dir, NODE_ENV: 'development' };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('authctl user devices / device-remove / recovery-codes', () => {
  let phoneId = '';

  it('lists a user’s devices as a table and as JSON, without key material', async () => {
    expect((await cli(['user', 'add', 'alice', '--email', 'alice@example.com', '--name', 'Alice', '--password-stdin'], 'gatehouse-test-pw\n')).code).toBe(0);
    expect((await cli(['user', 'add', 'bob', '--email', 'bob@example.com', '--name', 'Bob', '--password-stdin'], 'gatehouse-test-pw\n')).code).toBe(0);
    expect(await cli(['user', 'devices', 'alice'])).toEqual({ code: 0, stdout: 'no devices for alice\n', stderr: '' });
    phoneId = await withStores(async ({ accounts, devices }) => {
      const alice = (await accounts.findByUsername('alice'))!;
      const phone = await devices.create({ accountId: alice.id, name: 'Phone', publicKey: KEY });
      await devices.touch(phone.id, NOW + 60_000);
      return phone.id;
    });
    const table = await cli(['user', 'devices', 'alice']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')).toEqual([
      `ID${' '.repeat(36)}NAME   CREATED                   LAST_USED`,
      `${phoneId}  Phone  2026-11-21T12:00:00.000Z  2026-11-21T12:01:00.000Z`,
      '',
    ]);
    const json = await cli(['user', 'devices', 'ALICE', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([{ id: phoneId, name: 'Phone', created_at: '2026-11-21T12:00:00.000Z', last_used_at: '2026-11-21T12:01:00.000Z' }]);
    expect(json.stdout).not.toContain(KEY.x);
  });

  it('removes a device only for its owner', async () => {
    expect(await cli(['user', 'device-remove', 'bob', phoneId])).toEqual({ code: 1, stdout: '', stderr: `authctl: error: user "bob" has no device "${phoneId}"\n` });
    expect(await cli(['user', 'device-remove', 'alice', phoneId])).toEqual({ code: 0, stdout: `removed device ${phoneId} of alice\n`, stderr: '' });
    expect(await cli(['user', 'devices', 'alice', '--json'])).toMatchObject({ code: 0, stdout: '[]\n' });
  });

  it('issues a fresh set of 10 recovery codes and invalidates the old one', async () => {
    const old = await withStores(async ({ accounts, recovery }) => recovery.replace((await accounts.findByUsername('alice'))!.id));
    const run = await cli(['user', 'recovery-codes', 'alice']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'new recovery codes for alice; the previous ones no longer work.',
      'Each works once. Hand them over securely: they are not shown again.',
    ]);
    const codes = lines.slice(2);
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);
    await withStores(async ({ accounts, recovery }) => {
      const alice = (await accounts.findByUsername('alice'))!;
      expect(await recovery.consume(alice.id, old[0]!)).toBe('invalid');
      expect(await recovery.consume(alice.id, codes[0]!)).toBe('accepted');
      expect(await recovery.remaining(alice.id)).toBe(9);
    });
    const json = JSON.parse((await cli(['user', 'recovery-codes', 'alice', '--json'])).stdout) as { username: string; recovery_codes: string[] };
    expect(json.username).toBe('alice');
    expect(json.recovery_codes).toHaveLength(10);
  });

  it.each([
    [['user', 'devices'], 'user devices: missing <username>'],
    [['user', 'device-remove', 'alice'], 'user device-remove: missing <device_id>'],
    [['user', 'recovery-codes', 'alice', 'extra'], 'user recovery-codes: unexpected argument "extra"'],
    [['user', 'devices', 'alice', '--all'], 'user devices: unknown option --all'],
  ])('%j → exit 2 with one line', async (argv, message) => {
    expect(await cli(argv)).toEqual({ code: 2, stdout: '', stderr: `authctl: error: ${message} (run "authctl help" for usage)\n` });
  });

  it('refuses an unknown user, and lists the commands in help', async () => {
    expect(await cli(['user', 'devices', 'nobody'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown user "nobody"\n' });
    expect(await cli(['user', 'recovery-codes', 'nobody'])).toMatchObject({ code: 1, stderr: 'authctl: error: unknown user "nobody"\n' });
    const help = await cli(['help']);
    expect(help.stdout).toContain('  user devices <username> [--json]');
    expect(help.stdout).toContain('  user device-remove <username> <device_id>');
    expect(help.stdout).toContain('  user recovery-codes <username> [--json]');
  });
});
