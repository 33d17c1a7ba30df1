import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createPasskeyStore } from '../../src/passkeys/passkey-store.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
let dir: string;
let env: Record<string, string | undefined>;

async function cli(argv: string[], stdin = '') {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdin, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, clock: () => NOW });
  return { code, stdout, stderr };
}

async function addPasskeys(username: string) {
  const config = loadConfig(env);
  const database = await openAuthDatabase(config.databaseUrl);
  try {
    const account = (await createAccountStore(database.db, createSecretBox(config.encryptionKey)).findByUsername(username))!;
    const store = createPasskeyStore(database.db, () => NOW);
    const common = { accountId: account.id, publicKey: new Uint8Array([9, 9, 9]), counter: 3, transports: ['usb'], backedUp: false };
    await store.add({ ...common, id: '-key-one', name: 'YubiKey', deviceType: 'singleDevice' });
    await store.add({ ...common, id: 'key_two', name: 'Phone', deviceType: 'multiDevice' });
    await store.recordUse('key_two', 3, 4, NOW + 60_000);
  } finally {
    await database.close();
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authctl-passkeys-'));
  env = { AUTH_DATABASE_URL: `sqlite:${join(dir, 'auth.db')}`, AUTH_DATA_DIR: dir, NODE_ENV: 'development' };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('authctl user passkeys', () => {
  it('lists a user’s passkeys as a table and as JSON, without key material', async () => {
    expect((await cli(['user', 'add', 'carol', '--email', 'carol@example.com', '--name', 'Carol', '--password-stdin'], 'password-1234\n')).code).toBe(0);
    expect((await cli(['user', 'add', 'dan', '--email', 'dan@example.com', '--name', 'Dan', '--password-stdin'], 'password-1234\n')).code).toBe(0);
    expect(await cli(['user', 'passkeys', 'carol'])).toEqual({ code: 0, stdout: 'no passkeys for carol\n', stderr: '' });
    await addPasskeys('carol');
    const table = await cli(['user', 'passkeys', 'carol']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n').map((l) => l.trim().split(/\s{2,}/))).toEqual([
      ['ID', 'NAME', 'KIND', 'CREATED', 'LAST_USED'],
      ['-key-one', 'YubiKey', 'device-bound', '2026-11-23T12:00:00.000Z', '-'],
      ['key_two', 'Phone', 'synced', '2026-11-23T12:00:00.000Z', '2026-11-23T12:01:00.000Z'],
      [''],
    ]);
    const json = await cli(['user', 'passkeys', 'carol', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([
      { id: '-key-one', name: 'YubiKey', kind: 'device-bound', created_at: '2026-11-23T12:00:00.000Z', last_used_at: null },
      { id: 'key_two', name: 'Phone', kind: 'synced', created_at: '2026-11-23T12:00:00.000Z', last_used_at: '2026-11-23T12:01:00.000Z' },
    ]);
    expect(json.stdout).not.toContain('CQkJ');
  });

  it('removes a passkey of the named user only', async () => {
    expect(await cli(['user', 'passkeys', 'dan', '--remove', 'key_two'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: user "dan" has no passkey "key_two"\n' });
    expect(await cli(['user', 'passkeys', 'carol', '--remove', '-key-one'])).toEqual({ code: 0, stdout: 'removed passkey -key-one of carol\n', stderr: '' });
    expect(JSON.parse((await cli(['user', 'passkeys', 'carol', '--json'])).stdout)).toEqual([expect.objectContaining({ id: 'key_two' })]);
    expect(await cli(['user', 'passkeys', 'nobody'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown user "nobody"\n' });
  });

  it('is in the help, and refuses a missing username or a bare --remove', async () => {
    expect((await cli(['help'])).stdout).toContain('user passkeys <username> --remove <id>');
    expect((await cli(['user', 'passkeys'])).stderr).toBe('authctl: error: user passkeys: missing <username> (run "authctl help" for usage)\n');
    expect((await cli(['user', 'passkeys', 'carol', '--remove'])).code).toBe(2);
  });
});
