import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.ts';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
let dir: string;
let env: Record<string, string | undefined>;

async function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdin: '', stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, clock: () => NOW });
  return { code, stdout, stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authctl-scope-test-'));
  env = { AUTH_DATABASE_URL: `sqlite:${join(dir, 'auth.db')}`, AUTH_DATA_DIR: dir, NODE_ENV: 'development' };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('authctl scope policy / scope policies', () => {
  it('restricts a scope, lists it (table and JSON), and clears it', async () => {
    expect(await cli(['scope', 'policies'])).toEqual({ code: 0, stdout: 'no scope policies: every API scope is open to every user\n', stderr: '' });
    expect(await cli(['scope', 'policy', 'movies:write', '--groups', 'editors, admins'])).toEqual({
      code: 0,
      stdout: 'scope movies:write is granted only to users in: editors, admins\n',
      stderr: '',
    });
    const table = await cli(['scope', 'policies']);
    expect(table.stdout.split('\n').map((l) => l.trimEnd())).toEqual(['SCOPE         GROUPS', 'movies:write  editors,admins', '']);
    expect(JSON.parse((await cli(['scope', 'policies', '--json'])).stdout)).toEqual([
      { scope: 'movies:write', groups: ['editors', 'admins'], updated_at: '2026-11-23T12:00:00.000Z' },
    ]);
    expect(await cli(['scope', 'policy', 'movies:write', '--clear'])).toEqual({ code: 0, stdout: 'scope movies:write is open to every user\n', stderr: '' });
    expect((await cli(['scope', 'policies', '--json'])).stdout).toBe('[]\n');
    // Both changes are in the stored audit trail with the CLI's actor, newest first.
    const trail = JSON.parse((await cli(['audit', '--event', 'admin.scope.', '--json'])).stdout) as { items: Record<string, unknown>[] };
    expect(trail.items.map(({ event, actor_kind, actor, fields }) => ({ event, actor_kind, actor, fields }))).toEqual([
      { event: 'admin.scope.policy_cleared', actor_kind: 'operator', actor: 'cli', fields: { scope: 'movies:write' } },
      { event: 'admin.scope.policy_set', actor_kind: 'operator', actor: 'cli', fields: { scope: 'movies:write', groups: 'editors,admins' } },
    ]);
  });

  it.each([
    [['scope'], 2, 'scope: missing subcommand (policy, policies) (run "authctl help" for usage)'],
    [['scope', 'grant'], 2, 'unknown command "scope grant" (run "authctl help" for usage)'],
    [['scope', 'policy', 'movies:write'], 2, 'scope policy: give exactly one of --groups <group,group...> or --clear (run "authctl help" for usage)'],
    [['scope', 'policy', 'movies:write', '--groups', 'a', '--clear'], 2, 'scope policy: give exactly one of --groups <group,group...> or --clear (run "authctl help" for usage)'],
    [['scope', 'policy', 'movies:write', '--groups', 'a,,b'], 2, 'scope policy: --groups has an empty group name (run "authctl help" for usage)'],
    [['scope', 'policy', 'openid', '--groups', 'a'], 1, '"openid" is not an API scope (the API scopes are: movies:read, movies:write, customers:read, customers:write, cars:read, cars:write, users:read, users:write)'],
    [['scope', 'policy', 'movies:read', '--clear'], 1, 'scope "movies:read" has no policy'],
  ])('%j fails with a clear message', async (argv, code, message) => {
    expect(await cli(argv)).toEqual({ code, stdout: '', stderr: `authctl: error: ${message}\n` });
  });
});

describe('authctl client scopes', () => {
  it('limits a client, shows the limit, lifts it with --any', async () => {
    expect((await cli(['client', 'add', 'svc', '--grant', 'client_credentials'])).code).toBe(0);
    expect(await cli(['client', 'scopes', 'svc'])).toEqual({ code: 0, stdout: 'client svc may request any API scope\n', stderr: '' });
    expect(await cli(['client', 'scopes', 'svc', 'movies:read', 'cars:read'])).toEqual({ code: 0, stdout: 'client svc may request: movies:read cars:read\n', stderr: '' });
    expect(JSON.parse((await cli(['client', 'scopes', 'svc', '--json'])).stdout)).toEqual({ client_id: 'svc', allowed_scopes: ['movies:read', 'cars:read'] });
    expect(await cli(['client', 'scopes', 'svc', '--any'])).toEqual({ code: 0, stdout: 'client svc may request any API scope\n', stderr: '' });
    const trail = JSON.parse((await cli(['audit', '--event', 'admin.client.scopes_set', '--json'])).stdout) as { items: Record<string, unknown>[] };
    expect(trail.items.map(({ client_id, actor, fields }) => ({ client_id, actor, fields }))).toEqual([
      { client_id: 'svc', actor: 'cli', fields: { scopes: '*' } },
      { client_id: 'svc', actor: 'cli', fields: { scopes: 'movies:read cars:read' } },
    ]);
  });

  it.each([
    [['client', 'scopes'], 2, 'client scopes: missing <client_id> (run "authctl help" for usage)'],
    [['client', 'scopes', 'svc', 'movies:read', '--any'], 2, 'client scopes: give scopes or --any, not both (run "authctl help" for usage)'],
    [['client', 'scopes', 'nobody', 'movies:read'], 1, 'unknown client "nobody"'],
    [['client', 'scopes', 'nobody'], 1, 'unknown client "nobody"'],
    [['client', 'scopes', 'svc', 'movies:delete'], 1, '"movies:delete" is not an API scope (the API scopes are: movies:read, movies:write, customers:read, customers:write, cars:read, cars:write, users:read, users:write)'],
  ])('%j fails with a clear message', async (argv, code, message) => {
    expect(await cli(argv)).toEqual({ code, stdout: '', stderr: `authctl: error: ${message}\n` });
  });
});
