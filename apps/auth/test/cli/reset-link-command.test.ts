/**
 * `authctl user reset-link`: prints a one-time password-reset link for an operator to hand over,
 * audited with the actor, on SQLite and PostgreSQL. The link itself is tested over HTTP in
 * test/account/password-reset.test.ts.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { runCli } from '../../src/cli/run-cli.ts';
import { loadConfig } from '../../src/config/config.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');

describe.each(TEST_ENGINES)('authctl user reset-link on %s', (engine) => {
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

  async function resetRows() {
    const database = await openAuthDatabase(loadConfig(env).databaseUrl);
    try {
      return await database.db.selectFrom('password_resets').selectAll().execute();
    } finally {
      await database.close();
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authctl-reset-link-'));
    target = await createTestDatabase(engine);
    env = { AUTH_DATABASE_URL: target.url, AUTH_DATA_DIR: dir, NODE_ENV: 'development', AUTH_ISSUER: 'https://id.example.test' };
    expect((await cli(['user', 'add', 'alice', '--email', 'alice@example.com', '--name', 'Alice', '--password-stdin'], 'first passphrase\n')).code).toBe(0);
    expect((await cli(['user', 'add', 'bob', '--email', 'bob@example.com', '--name', 'Bob', '--password-stdin'], 'second passphrase\n')).code).toBe(0);
  });
  afterAll(async () => {
    await target.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints a one-time link valid one hour, stores only its hash, and audits the operator without the token', async () => {
    audit = [];
    const run = await cli(['user', 'reset-link', 'Alice']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const [intro, url, ...rest] = run.stdout.split('\n');
    expect(intro).toBe('one-time password-reset link for alice (valid until 2026-11-23T13:00:00.000Z; it replaces any earlier link):');
    expect(rest).toEqual(['']);
    expect(url).toMatch(/^https:\/\/id\.example\.test\/account\/password-reset\/[A-Za-z0-9_-]{43}$/);
    const token = url!.split('/').at(-1)!;
    const rows = await resetRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ token_hash: createHash('sha256').update(token).digest('hex'), used_at: null });
    expect(Number(rows[0]!.expires_at)).toBe(NOW + 3_600_000);
    expect(audit).toEqual([
      expect.objectContaining({ name: 'authctl', event: 'admin.user.reset_link_issued', actor_kind: 'operator', actor: 'cli', account_id: rows[0]!.account_id, expires_at: '2026-11-23T13:00:00.000Z' }),
    ]);
    expect(JSON.stringify(audit)).not.toContain(token);
  });

  it('a new link replaces the previous one; --json prints the link as JSON', async () => {
    const first = (await cli(['user', 'reset-link', 'bob'])).stdout.split('\n')[1]!;
    const second = await cli(['user', 'reset-link', 'bob', '--json']);
    expect(second.code).toBe(0);
    const body = JSON.parse(second.stdout) as { username: string; url: string; expires_at: string };
    expect(body).toEqual({ username: 'bob', url: expect.stringMatching(/^https:\/\/id\.example\.test\/account\/password-reset\/[A-Za-z0-9_-]{43}$/), expires_at: '2026-11-23T13:00:00.000Z' });
    expect(body.url).not.toBe(first);
    const hashes = (await resetRows()).map((r) => r.token_hash);
    expect(hashes).toContain(createHash('sha256').update(body.url.split('/').at(-1)!).digest('hex'));
    expect(hashes).not.toContain(createHash('sha256').update(first.split('/').at(-1)!).digest('hex'));
  });

  it('refuses an unknown user, a disabled user and bad arguments, and lists the verb in the help', async () => {
    expect(await cli(['user', 'reset-link', 'nobody'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown user "nobody"\n' });
    expect((await cli(['user', 'disable', 'bob'])).code).toBe(0);
    expect(await cli(['user', 'reset-link', 'bob'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: user "bob" is disabled; enable it before issuing a reset link\n' });
    expect((await cli(['user', 'reset-link'])).code).toBe(2);
    expect((await cli(['user', 'reset-link', 'alice', 'extra'])).stderr).toContain('user reset-link: unexpected argument "extra"');
    expect((await cli(['--help'])).stdout).toContain('  user reset-link <username> [--json]  prints a one-time password-reset link (1 hour; replaces the previous link)');
  });
});
