/**
 * `authctl user link|unlink|links` (federation/operator-links.ts) on SQLite and PostgreSQL: exact
 * output and exit codes, the stored link, the audit lines (`account.linked` / `account.unlinked`
 * via operator), and every refusal as one line: unknown user or provider, a bad subject, an
 * upstream user already linked, an account already linked to another user of the provider, no
 * link to remove; removing the provider removes its links.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { runCli } from '../../src/cli/run-cli.ts';

const NOW = Date.parse('2026-11-21T12:00:00.000Z');

describe.each(TEST_ENGINES)('authctl user link / unlink / links on %s', (engine) => {
  let dir: string;
  let target: TestDatabase;
  let env: Record<string, string | undefined>;
  const lines: Record<string, unknown>[] = [];

  async function cli(argv: string[], stdin = '') {
    let stdout = '';
    let stderr = '';
    const log = (line: string) => lines.push(...line.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>));
    const code = await runCli(argv, { stdin, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, clock: () => NOW, log });
    return { code, stdout, stderr };
  }
  const audited = (event: string) => lines.filter((l) => l.event === event).map(({ event: e, account_id, provider, via, actor_kind, actor }) => ({ event: e, account_id, provider, via, actor_kind, actor }));

  let aliceId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authctl-link-'));
    target = await createTestDatabase(engine);
    env = { AUTH_DATABASE_URL: target.url, AUTH_DATA_DIR: dir, NODE_ENV: 'development' };
    for (const username of ['alice', 'bob']) {
      expect((await cli(['user', 'add', username, '--email', `${username}@example.com`, '--name', username, '--password-stdin'], 'a long enough passphrase\n')).code).toBe(0);
    }
    aliceId = (JSON.parse((await cli(['user', 'list', '--json'])).stdout) as { items: { id: string; username: string }[] }).items.find((u) => u.username === 'alice')!.id;
    expect((await cli(['idp', 'add', 'github', '--preset', 'github', '--client-id', 'Iv1.x', '--client-secret', 'gh-secret'])).code).toBe(0);
    expect((await cli(['idp', 'add', 'acme', '--issuer', 'https://acme.example', '--client-id', 'g', '--client-secret', 'acme-secret'])).code).toBe(0);
  });
  afterAll(async () => {
    await target.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('link stores the link and audits it; links lists it', async () => {
    expect(await cli(['user', 'link', 'Alice', '--idp', 'github', '--subject', '583231'])).toEqual({ code: 0, stdout: 'linked Alice to the github user 583231\n', stderr: '' });
    expect(audited('account.linked')).toEqual([{ event: 'account.linked', account_id: aliceId, provider: 'github', via: 'operator', actor_kind: 'operator', actor: 'cli' }]);
    expect(await cli(['user', 'links', 'alice'])).toEqual({
      code: 0,
      stdout: ['PROVIDER  SUBJECT  LINKED                    LAST_USED', 'github    583231   2026-11-21T12:00:00.000Z  -', ''].join('\n'),
      stderr: '',
    });
    expect(JSON.parse((await cli(['user', 'links', 'alice', '--json'])).stdout)).toEqual({ items: [{ provider: 'github', subject: '583231', created_at: '2026-11-21T12:00:00.000Z', last_used_at: null }] });
  });

  it.each<[string, string[], number, string]>([
    ['an upstream user already linked', ['user', 'link', 'bob', '--idp', 'github', '--subject', '583231'], 1, 'authctl: error: this github user is already linked to an account\n'],
    ['a second user of the same provider', ['user', 'link', 'alice', '--idp', 'github', '--subject', '999'], 1, 'authctl: error: the account is already linked to another github user\n'],
    ['an unknown user', ['user', 'link', 'carol', '--idp', 'github', '--subject', '1'], 1, 'authctl: error: unknown user "carol"\n'],
    ['an unknown provider', ['user', 'link', 'bob', '--idp', 'gitlab', '--subject', '1'], 1, 'authctl: error: unknown identity provider "gitlab"\n'],
    ['a subject with a space', ['user', 'link', 'bob', '--idp', 'github', '--subject', 'a b'], 1, 'authctl: error: the upstream subject must be 1-256 visible characters without spaces\n'],
    ['no --subject', ['user', 'link', 'bob', '--idp', 'github'], 2, 'authctl: error: user link: missing required option --subject (run "authctl help" for usage)\n'],
    ['no link to remove', ['user', 'unlink', 'bob', '--idp', 'github'], 1, 'authctl: error: bob has no link to the identity provider "github"\n'],
  ])('refuses %s', async (_name, argv, code, stderr) => {
    expect(await cli(argv)).toEqual({ code, stdout: '', stderr });
  });

  it('unlink removes the link and audits it; removing a provider removes its links', async () => {
    expect(await cli(['user', 'unlink', 'alice', '--idp', 'github'])).toEqual({ code: 0, stdout: 'unlinked alice from github\n', stderr: '' });
    expect(audited('account.unlinked')).toEqual([{ event: 'account.unlinked', account_id: aliceId, provider: 'github', via: 'operator', actor_kind: 'operator', actor: 'cli' }]);
    expect((await cli(['user', 'links', 'alice'])).stdout).toBe('alice has no links to identity providers\n');
    expect((await cli(['user', 'link', 'alice', '--idp', 'acme', '--subject', 'sub-1'])).code).toBe(0);
    expect((await cli(['idp', 'remove', 'acme'])).code).toBe(0);
    expect(lines.filter((l) => l.event === 'identity_provider.removed').map((l) => [l.provider, l.links])).toEqual([['acme', 1]]);
    expect(JSON.parse((await cli(['user', 'links', 'alice', '--json'])).stdout)).toEqual({ items: [] });
  });
});
