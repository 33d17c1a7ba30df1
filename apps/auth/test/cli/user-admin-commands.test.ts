import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { verifyPassword } from '../../src/accounts/password.ts';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { runCli } from '../../src/cli/run-cli.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';

const NOW = Date.parse('2026-11-21T12:00:00.000Z');
const HOUR = 3_600_000;

describe.each(TEST_ENGINES)('authctl user passwd / unlock / sessions / signout-all on %s', (engine) => {
  let dir: string;
  let target: TestDatabase;
  let env: Record<string, string | undefined>;
  let audit: Record<string, unknown>[] = [];

  async function cli(argv: string[], stdin = '') {
    let stdout = '';
    let stderr = '';
    const log = (line: string) => audit.push(...line.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>));
    const code = await runCli(argv, { stdin, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, clock: () => NOW, log });
    return { code, stdout, stderr };
  }

  async function withDb<T>(fn: (db: Awaited<ReturnType<typeof openAuthDatabase>>['db'], accounts: ReturnType<typeof createAccountStore>) => Promise<T>): Promise<T> {
    const config = loadConfig(env);
    const database = await openAuthDatabase(config.databaseUrl);
    try {
      return await fn(database.db, createAccountStore(database.db, createSecretBox(config.encryptionKey)));
    } finally {
      await database.close();
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authctl-user-admin-'));
    target = await createTestDatabase(engine);
    env = { AUTH_DATABASE_URL: target.url, AUTH_DATA_DIR: dir, NODE_ENV: 'development' };
    expect((await cli(['user', 'add', 'alice', '--email', 'alice@example.com', '--name', 'Alice', '--password-stdin'], 'first passphrase\n')).code).toBe(0);
    expect((await cli(['user', 'add', 'bob', '--email', 'bob@example.com', '--name', 'Bob', '--password-stdin'], 'second passphrase\n')).code).toBe(0);
  });
  afterAll(async () => {
    await target.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('user add and user passwd refuse a listed password, ignoring case, naming the rule', async () => {
    const refused = 'authctl: error: password is on the list of common or breached passwords; choose another\n';
    expect(await cli(['user', 'add', 'carol', '--email', 'c@example.com', '--name', 'C', '--password-stdin'], 'Password1234\n')).toEqual({ code: 1, stdout: '', stderr: refused });
    expect(await cli(['user', 'passwd', 'alice', '--password-stdin'], 'LEAVEMEALONE\n')).toEqual({ code: 1, stdout: '', stderr: refused });
    expect(await cli(['user', 'passwd', 'alice', '--password-stdin'], 'eleven-char\n')).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: password must be at least 12 characters\n' });
    expect(await cli(['user', 'passwd', 'alice', '--password-stdin'], '\n')).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: password is empty (pipe it on standard input)\n' });
  });

  it('user passwd sets a new password (12 code points of Unicode are enough) and audits the operator', async () => {
    audit = [];
    const password = 'ß🦊ü🦊ß🦊ü🦊ß🦊ü🦊';
    expect([...password]).toHaveLength(12);
    expect(await cli(['user', 'passwd', 'Alice', '--password-stdin'], `${password}\n`)).toEqual({
      code: 0,
      stdout: 'set a new password for alice; lockouts cleared; 0 sessions and 0 grants ended\n',
      stderr: '',
    });
    const id = await withDb(async (_db, accounts) => {
      const alice = (await accounts.findByUsername('alice'))!;
      expect(await verifyPassword(alice.passwordHash, password)).toBe(true);
      return alice.id;
    });
    expect(audit).toEqual([expect.objectContaining({ name: 'authctl', event: 'admin.user.password_set', actor_kind: 'operator', actor: 'cli', account_id: id })]);
    expect(JSON.stringify(audit)).not.toContain(password);
    expect(await cli(['user', 'passwd', 'nobody', '--password-stdin'], 'a valid passphrase\n')).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown user "nobody"\n' });
  });

  it('user unlock deletes the account and second-factor counters only', async () => {
    await withDb(async (db) => {
      const rows = ['account:alice', 'account:alice', 'mfa:alice', 'ip:192.0.2.1', 'account:bob'].map((key, i) => ({ id: `r${i}`, key, at_ms: NOW - i }));
      await db.insertInto('regulation_failures').values(rows).execute();
    });
    audit = [];
    expect(await cli(['user', 'unlock', 'ALICE'])).toEqual({ code: 0, stdout: 'unlocked alice (3 recorded failures cleared)\n', stderr: '' });
    expect(await cli(['user', 'unlock', 'alice'])).toEqual({ code: 0, stdout: 'unlocked alice (0 recorded failures cleared)\n', stderr: '' });
    const left = await withDb((db) => db.selectFrom('regulation_failures').select('key').orderBy('key').execute());
    expect(left.map((r) => r.key)).toEqual(['account:bob', 'ip:192.0.2.1']);
    expect(audit.map((l) => [l.event, l.actor, l.cleared])).toEqual([
      ['admin.user.unlocked', 'cli', 3],
      ['admin.user.unlocked', 'cli', 0],
    ]);
    expect(await cli(['user', 'unlock', 'nobody'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown user "nobody"\n' });
  });

  it('user list shows who is disabled and who is locked out by brute-force regulation, until when', async () => {
    // 30 password failures within the window lock bob's account key for an hour from the last one.
    await withDb((db) => db.insertInto('regulation_failures').values(Array.from({ length: 30 }, (_, i) => ({ id: `lock${i}`, key: 'account:bob', at_ms: NOW - i * 1000 }))).execute());
    expect((await cli(['user', 'disable', 'alice'])).code).toBe(0);
    expect(await cli(['user', 'list'])).toEqual({
      code: 0,
      stdout: [
        'USERNAME  EMAIL              NAME   GROUPS  TOTP  DISABLED  LOCKED',
        'alice     alice@example.com  Alice          no    yes       no',
        'bob       bob@example.com    Bob            no    no        until 2026-11-21T13:00:00.000Z',
        '',
      ].join('\n'),
      stderr: '',
    });
    const json = (JSON.parse((await cli(['user', 'list', '--json'])).stdout) as { items: Record<string, unknown>[] }).items;
    expect(json.map((u) => [u.username, u.disabled, u.disabled_at, u.locked, u.locked_until])).toEqual([
      ['alice', true, '2026-11-21T12:00:00.000Z', false, null],
      ['bob', false, null, true, '2026-11-21T13:00:00.000Z'],
    ]);
    expect((await cli(['user', 'unlock', 'bob'])).code).toBe(0);
    expect((await cli(['user', 'enable', 'alice'])).code).toBe(0);
    expect(JSON.parse((await cli(['user', 'list', '--json'])).stdout).items.map((u: Record<string, unknown>) => [u.disabled, u.locked])).toEqual([
      [false, false],
      [false, false],
    ]);
  });

  it('user sessions lists the sessions with their clients; user signout-all ends them, their grants and refresh tokens', async () => {
    const { alice, bob } = await withDb(async (db, accounts) => {
      const alice = (await accounts.findByUsername('alice'))!.id;
      const bob = (await accounts.findByUsername('bob'))!.id;
      const sessionTtl = loadConfig(env).sessionTtl * 1000;
      const session = (id: string, accountId: string, loginMs: number, usedMs: number, grants: Record<string, string>) => ({
        model: 'Session',
        id,
        payload: JSON.stringify({ accountId, loginTs: loginMs / 1000, authorizations: Object.fromEntries(Object.entries(grants).map(([c, g]) => [c, { grantId: g, sid: `sid-${g}` }])) }),
        grant_id: null,
        user_code: null,
        uid: null,
        expires_at: usedMs + sessionTtl,
        consumed_at: null,
      });
      const row = (model: string, id: string, payload: object, grantId: string | null) => ({ model, id, payload: JSON.stringify(payload), grant_id: grantId, user_code: null, uid: null, expires_at: NOW + HOUR, consumed_at: null });
      await db
        .insertInto('oidc_payloads')
        .values([
          session('s-laptop', alice, NOW - 5 * HOUR, NOW - HOUR, { 'test-app': 'g1', 'app-two': 'g2' }),
          session('s-phone', alice, NOW - 2 * HOUR, NOW - 60_000, { 'test-app': 'g3' }),
          session('s-old', alice, NOW - 50 * HOUR, NOW - 100 * HOUR, { 'test-app': 'g9' }),
          session('s-bob', bob, NOW - HOUR, NOW - HOUR, { 'test-app': 'gb' }),
          row('Grant', 'g1', { accountId: alice, clientId: 'test-app' }, null),
          row('Grant', 'g2', { accountId: alice, clientId: 'app-two' }, null),
          row('Grant', 'g3', { accountId: alice, clientId: 'test-app' }, null),
          row('Grant', 'g-offline', { accountId: alice, clientId: 'test-app' }, null),
          row('Grant', 'gb', { accountId: bob, clientId: 'test-app' }, null),
          row('RefreshToken', 'rt1', { accountId: alice, grantId: 'g1' }, 'g1'),
          row('RefreshToken', 'rt-offline', { accountId: alice, grantId: 'g-offline' }, 'g-offline'),
          row('RefreshToken', 'rtb', { accountId: bob, grantId: 'gb' }, 'gb'),
        ])
        .execute();
      return { alice, bob };
    });
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(await cli(['user', 'sessions', 'alice'])).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'SIGNED IN                 LAST USED                 EXPIRES                   CLIENTS',
        `${iso(NOW - 2 * HOUR)}  ${iso(NOW - 60_000)}  ${iso(NOW - 60_000 + loadConfig(env).sessionTtl * 1000)}  test-app`,
        `${iso(NOW - 5 * HOUR)}  ${iso(NOW - HOUR)}  ${iso(NOW - HOUR + loadConfig(env).sessionTtl * 1000)}  test-app,app-two`,
        '',
      ].join('\n'),
    });
    // The admin API's sessions (admin/json/session-json.ts): never a session id, the value of the session cookie.
    const json = JSON.parse((await cli(['user', 'sessions', 'alice', '--json'])).stdout) as { items: Record<string, unknown>[] };
    expect(json.items.map((s) => [s.signed_in_at, s.last_used_at, s.clients])).toEqual([
      [iso(NOW - 2 * HOUR), iso(NOW - 60_000), [{ client_id: 'test-app', grant_id: 'g3' }]],
      [iso(NOW - 5 * HOUR), iso(NOW - HOUR), [{ client_id: 'test-app', grant_id: 'g1' }, { client_id: 'app-two', grant_id: 'g2' }]],
    ]);
    expect(json.items.every((s) => !('id' in s))).toBe(true);
    expect(JSON.stringify(json)).not.toMatch(/s-phone|s-laptop/);

    audit = [];
    expect(await cli(['user', 'signout-all', 'alice'])).toEqual({ code: 0, stdout: 'signed alice out everywhere: 2 sessions and 4 grants ended\n', stderr: '' });
    expect(await cli(['user', 'sessions', 'alice'])).toEqual({ code: 0, stdout: 'no sessions for alice\n', stderr: '' });
    expect(audit).toEqual([expect.objectContaining({ event: 'admin.user.signed_out', actor_kind: 'operator', actor: 'cli', account_id: alice, sessions: 2, grants: 4 })]);
    await withDb(async (db) => {
      const rows = await db.selectFrom('oidc_payloads').select(['model', 'id']).orderBy('model').orderBy('id').execute();
      // Bob's rows stay; the expired session is not Alice's to end (it is purged with the others).
      expect(rows.map((r) => `${r.model}:${r.id}`)).toEqual(['Grant:gb', 'RefreshToken:rtb', 'Session:s-bob', 'Session:s-old']);
      const revoked = await db.selectFrom('token_revocations').select(['type', 'grant_id']).where('type', '=', 'grant').orderBy('grant_id').execute();
      expect(revoked.map((r) => r.grant_id)).toEqual(['g-offline', 'g1', 'g2', 'g3']);
    });
    expect(bob).not.toBe(alice);
    expect(await cli(['user', 'signout-all', 'nobody'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown user "nobody"\n' });
  });

  it('checks its arguments before opening the database', async () => {
    expect(await cli(['user', 'passwd', 'alice'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'authctl: error: user passwd: missing required option --password-stdin (the password is read from standard input) (run "authctl help" for usage)\n',
    });
    expect((await cli(['user', 'sessions'])).stderr).toBe('authctl: error: user sessions: missing <username> (run "authctl help" for usage)\n');
    expect((await cli(['user', 'signout-all', 'a', 'b'])).stderr).toBe('authctl: error: user signout-all: unexpected argument "b" (run "authctl help" for usage)\n');
    expect((await cli(['user', 'unlock', 'a', '--json'])).stderr).toBe('authctl: error: user unlock: unknown option --json (run "authctl help" for usage)\n');
    const help = (await cli(['help'])).stdout;
    for (const verb of ['user passwd <username> --password-stdin', 'user unlock <username>', 'user sessions <username> [--json]', 'user signout-all <username>']) {
      expect(help).toContain(`  ${verb}`);
    }
  });
});
