import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { runCli } from '../../src/cli/run-cli.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createAuditEventStore, type AuditRecord } from '../../src/audit/audit-event-store.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const HOUR = 3_600_000;

function record(hoursAgo: number, event: string, extra: Partial<AuditRecord> = {}): AuditRecord {
  return { occurredAt: NOW - hoursAgo * HOUR, event, accountId: null, username: null, clientId: null, actorKind: null, actor: null, ip: null, fields: {}, ...extra };
}

describe.each(TEST_ENGINES)('authctl audit on %s', (engine) => {
  let dir: string;
  let target: TestDatabase;
  let env: Record<string, string | undefined>;
  let aliceId = '';

  async function cli(argv: string[], stdin = '') {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, { stdin, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, clock: () => NOW });
    return { code, stdout, stderr };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authctl-audit-'));
    target = await createTestDatabase(engine);
    env = { AUTH_DATABASE_URL: target.url, AUTH_DATA_DIR: dir, NODE_ENV: 'development' };
    expect((await cli(['user', 'add', 'alice', '--email', 'alice@example.com', '--name', 'Alice', '--password-stdin', '--json'], 'a long passphrase\n')).code).toBe(0);
    // Admin changes made with authctl (the user's creation, then disable): stored with their actor, through the CLI's own logger.
    expect((await cli(['user', 'disable', 'alice'])).code).toBe(0);
    const database = await openAuthDatabase(loadConfig(env).databaseUrl);
    try {
      aliceId = (await database.db.selectFrom('accounts').select('id').where('username', '=', 'alice').executeTakeFirstOrThrow()).id;
      await createAuditEventStore(database.db, engine).append([
        record(48, 'login.password.failure', { username: 'alice', ip: '10.0.0.1' }),
        record(30, 'login.password.success', { accountId: aliceId, ip: '10.0.0.1' }),
        record(30, 'login.mfa.success', { accountId: aliceId, ip: '10.0.0.1', fields: { method: 'totp' } }),
        record(20, 'token.issued', { clientId: 'app-one', fields: { grant_type: 'authorization_code' } }),
        record(2, 'login.password.failure', { username: 'mallory', ip: '10.0.0.66' }),
      ]);
    } finally {
      await database.close();
    }
  });
  afterAll(async () => {
    await target.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the trail newest first as a table, the CLI change with its actor on top', async () => {
    const { code, stdout, stderr } = await cli(['audit']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const pad = (cells: string[], widths: number[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
    const rows = [
      ['TIME', 'EVENT', 'ACTOR', 'ACCOUNT', 'CLIENT', 'IP', 'FIELDS'],
      ['2026-11-23T12:00:00Z', 'admin.user.disabled', 'operator:cli', aliceId, '-', '-', 'sessions=0 grants=0'],
      ['2026-11-23T12:00:00Z', 'admin.user.created', 'operator:cli', aliceId, '-', '-', 'password_set=true'],
      ['2026-11-23T10:00:00Z', 'login.password.failure', '-', '-', '-', '10.0.0.66', 'username=mallory'],
      ['2026-11-22T16:00:00Z', 'token.issued', '-', '-', 'app-one', '-', 'grant_type=authorization_code'],
      ['2026-11-22T06:00:00Z', 'login.mfa.success', '-', aliceId, '-', '10.0.0.1', 'method=totp'],
      ['2026-11-22T06:00:00Z', 'login.password.success', '-', aliceId, '-', '10.0.0.1', ''],
      ['2026-11-21T12:00:00Z', 'login.password.failure', '-', '-', '-', '10.0.0.1', 'username=alice'],
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    expect(stdout).toBe(`${rows.map((r) => pad(r, widths)).join('\n')}\n`);
  });

  it('--json prints the admin API page: { items, next }', async () => {
    const { code, stdout } = await cli(['audit', '--user', 'ALICE', '--event', 'admin.', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      items: [
        {
          id: expect.stringMatching(/^\d+$/),
          occurred_at: '2026-11-23T12:00:00.000Z',
          event: 'admin.user.disabled',
          account_id: aliceId,
          username: null,
          client_id: null,
          actor_kind: 'operator',
          actor: 'cli',
          ip: null,
          request_id: null,
          fields: { sessions: 0, grants: 0 },
        },
        {
          id: expect.stringMatching(/^\d+$/),
          occurred_at: '2026-11-23T12:00:00.000Z',
          event: 'admin.user.created',
          account_id: aliceId,
          username: null,
          client_id: null,
          actor_kind: 'operator',
          actor: 'cli',
          ip: null,
          request_id: null,
          fields: { password_set: true },
        },
      ],
      next: null,
    });
  });

  it('filters by user (with the failed logins naming it), client, event prefix and time, ago or ISO', async () => {
    const events = async (argv: string[]) => {
      const { code, stdout, stderr } = await cli(['audit', ...argv, '--json']);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      return (JSON.parse(stdout) as { items: { event: string; occurred_at: string }[] }).items.map((e) => `${e.event} ${e.occurred_at.slice(0, 13)}`);
    };
    expect(await events(['--user', 'alice'])).toEqual([
      'admin.user.disabled 2026-11-23T12',
      'admin.user.created 2026-11-23T12',
      'login.mfa.success 2026-11-22T06',
      'login.password.success 2026-11-22T06',
      'login.password.failure 2026-11-21T12',
    ]);
    expect(await events(['--client', 'app-one'])).toEqual(['token.issued 2026-11-22T16']);
    expect(await events(['--event', 'login.password.', '--since', '24h'])).toEqual(['login.password.failure 2026-11-23T10']);
    expect(await events(['--since', '2026-11-22T00:00:00Z', '--until', '2026-11-22T16:00:00+00:00'])).toEqual(['login.mfa.success 2026-11-22T06', 'login.password.success 2026-11-22T06']);
    // until is exclusive: mallory's failure, exactly 2 h ago, is left out.
    expect(await events(['--since', '2026-11-22', '--until', '2h'])).toEqual(['token.issued 2026-11-22T16', 'login.mfa.success 2026-11-22T06', 'login.password.success 2026-11-22T06']);
    expect(await events(['--user', 'nobody'])).toEqual([]);
    expect(await cli(['audit', '--user', 'nobody'])).toEqual({ code: 0, stdout: 'no audit events match\n', stderr: '' });
  });

  it('pages with --limit and --after: the table ends with the next cursor, the pages hold every event once', async () => {
    const first = await cli(['audit', '--limit', '4']);
    const lines = first.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    const more = /^more: add --after ([A-Za-z0-9_-]+)$/.exec(lines.at(-1)!);
    expect(more).not.toBeNull();
    const second = JSON.parse((await cli(['audit', '--limit', '4', '--after', more![1]!, '--json'])).stdout) as { items: { event: string }[]; next: string | null };
    expect(second).toEqual({ items: [expect.objectContaining({ event: 'login.mfa.success' }), expect.objectContaining({ event: 'login.password.success' }), expect.objectContaining({ event: 'login.password.failure', username: 'alice' })], next: null });
    const firstJson = JSON.parse((await cli(['audit', '--limit', '4', '--json'])).stdout) as { items: { id: string }[]; next: string };
    expect(firstJson.next).toBe(more![1]);
    const all = JSON.parse((await cli(['audit', '--json'])).stdout) as { items: { id: string }[] };
    expect([...firstJson.items, ...second.items].map((e) => (e as { id: string }).id)).toEqual(all.items.map((e) => e.id));
  });

  it.each([
    [['audit', '--limit', '0'], 'audit: --limit must be a whole number from 1 to 200'],
    [['audit', '--limit', 'ten'], 'audit: --limit must be a whole number from 1 to 200'],
    [['audit', '--limit', '500'], 'audit: --limit must be a whole number from 1 to 200'],
    [['audit', '--since', 'yesterday'], 'audit: --since must be an ISO 8601 time with a zone (2026-11-23T10:00:00Z) or a duration back from now (30m, 24h, 7d)'],
    [['audit', '--until', '2026-11-23T10:00:00'], 'audit: --until must be an ISO 8601 time with a zone (2026-11-23T10:00:00Z) or a duration back from now (30m, 24h, 7d)'],
    [['audit', '--since', '2026-02-30'], 'audit: --since must be an ISO 8601 time with a zone (2026-11-23T10:00:00Z) or a duration back from now (30m, 24h, 7d)'],
    [['audit', '--since', '1h', '--until', '2h'], 'audit: --until must be later than since'],
    [['audit', '--event', 'LOGIN'], 'audit: --event must be an event name (login.password.failure) or a prefix ending in "." (login.)'],
    [['audit', '--after', 'bogus!'], 'audit: --after is not a cursor this server issued'],
    [['audit', '--after', 'MTIz'], 'audit: --after is not a cursor this server issued'],
    [['audit', '--user'], 'audit: option --user needs a value'],
    [['audit', '--verbose'], 'audit: unknown option --verbose'],
    [['audit', 'alice'], 'audit: unexpected argument "alice"'],
  ])('%j is a usage error (exit 2) naming the flag', async (argv, message) => {
    expect(await cli(argv)).toEqual({ code: 2, stdout: '', stderr: `authctl: error: ${message} (run "authctl help" for usage)\n` });
  });

  it('is in the help text', async () => {
    const { code, stdout } = await cli(['help']);
    expect(code).toBe(0);
    expect(stdout).toContain('  audit [--user <username>] [--client <client_id>] [--event <name|prefix.>] [--since <time>] [--until <time>]\n');
    expect(await cli(['audit', '--help'])).toEqual({ code: 0, stdout, stderr: '' });
  });
});
