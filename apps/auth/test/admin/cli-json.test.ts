/**
 * One JSON shape per resource (admin/json/): for the same stored user, session, client, identity provider, key and
 * audit event, `authctl ... --json` prints exactly the admin API's body. The CLI runs in process
 * on the server's own database, as an operator would on the same host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { runCli } from '../../src/cli/run-cli.ts';
import { startServer, type TestAuthServer } from '../support/flow.ts';
import { addAdminClient, call, machineToken } from './admin-support.ts';

describe.each(TEST_ENGINES)('authctl --json and the admin API on %s', (engine) => {
  let server: TestAuthServer;
  let tokens: Record<'read' | 'write' | 'clients' | 'keys' | 'audit' | 'idps', string>;
  let aliceId: string;

  async function cli(argv: string[]): Promise<unknown> {
    let stdout = '';
    let stderr = '';
    const env = { AUTH_DATABASE_URL: server.config.databaseUrl, AUTH_DATA_DIR: server.config.dataDir, NODE_ENV: 'test' };
    const code = await runCli(argv, { stdin: '', stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, clock: Date.now });
    expect({ code, stderr }, argv.join(' ')).toEqual({ code: 0, stderr: '' });
    return JSON.parse(stdout);
  }

  async function api(path: string, token: string): Promise<unknown> {
    const answer = await call(server, 'GET', path, { token });
    expect(answer.status, path).toBe(200);
    return answer.body;
  }

  beforeAll(async () => {
    server = await startServer({ engine });
    await addAdminClient(server);
    tokens = {
      read: await machineToken(server, 'admin:users:read'),
      write: await machineToken(server, 'admin:users:write'),
      clients: await machineToken(server, 'admin:clients:write'),
      keys: await machineToken(server, 'admin:keys'),
      audit: await machineToken(server, 'admin:audit:read'),
      idps: await machineToken(server, 'admin:identity-providers:write'),
    };
    await server.createUser({ username: 'alice', groups: ['admins', 'editors'] });
    await server.createUser({ username: 'bob' });
    aliceId = (await server.app.services.accounts.findByUsername('alice'))!.id;
    // A session and a grant of Alice's, and a disabled Bob: the shapes carry more than defaults.
    await server.login({ scope: 'openid offline_access', username: 'alice' });
    const bobId = (await server.app.services.accounts.findByUsername('bob'))!.id;
    expect((await call(server, 'POST', `/users/${bobId}/disable`, { token: tokens.write })).status).toBe(200);
  });
  afterAll(() => server.close());

  it('a user: `user update --json` is GET /users/{id}; `user list --json` is GET /users', async () => {
    const updated = await cli(['user', 'update', 'alice', '--name', 'Alice Liddell', '--json']);
    expect(updated).toMatchObject({ id: aliceId, name: 'Alice Liddell', groups: ['admins', 'editors'] });
    expect(updated).toEqual(await api(`/users/${aliceId}`, tokens.read));
    const listed = await cli(['user', 'list', '--json']);
    expect((listed as { items: { username: string; disabled: boolean }[] }).items.map((u) => [u.username, u.disabled])).toEqual([
      ['alice', false],
      ['bob', true],
    ]);
    expect(listed).toEqual(await api('/users', tokens.read));
  });

  it('a user\'s sessions: `user sessions --json` is GET /users/{id}/sessions', async () => {
    const sessions = await cli(['user', 'sessions', 'alice', '--json']);
    expect((sessions as { items: unknown[] }).items).toHaveLength(1);
    expect(sessions).toEqual(await api(`/users/${aliceId}/sessions`, tokens.read));
  });

  it('a client: `client show --json` is GET /clients/{id}; `client list --json` is GET /clients', async () => {
    const shown = await cli(['client', 'show', server.testClient.clientId, '--json']);
    expect(shown).toMatchObject({ client_id: server.testClient.clientId, jwks: null, logo_uri: null });
    expect(shown).toEqual(await api(`/clients/${server.testClient.clientId}`, tokens.clients));
    const listed = await cli(['client', 'list', '--json']);
    expect((listed as { items: unknown[] }).items.length).toBeGreaterThan(2);
    expect(listed).toEqual(await api('/clients', tokens.clients));
  });

  it('an identity provider: `idp add|show --json` is GET /identity-providers/{slug}; `idp list --json` is GET /identity-providers', async () => {
    const added = await cli(['idp', 'add', 'github', '--preset', 'github', '--client-id', 'Iv1.cli', '--client-secret', 'cli-json-secret', '--map-group', 'org/team=editors', '--json']);
    expect(added).toMatchObject({ slug: 'github', client_secret_set: true, group_mappings: [{ upstream: 'org/team', group: 'editors' }] });
    expect(JSON.stringify(added)).not.toContain('cli-json-secret');
    expect(added).toEqual(await api('/identity-providers/github', tokens.idps));
    expect(await cli(['idp', 'show', 'github', '--json'])).toEqual(await api('/identity-providers/github', tokens.idps));
    expect(await cli(['idp', 'list', '--json'])).toEqual(await api('/identity-providers', tokens.idps));
  });

  it('the signing keys: `keys list --json` is GET /keys', async () => {
    await server.rotateKeys();
    const listed = await cli(['keys', 'list', '--json']);
    expect((listed as { items: { state: string }[] }).items.map((k) => k.state)).toEqual(['active', 'retired']);
    expect(listed).toEqual(await api('/keys', tokens.keys));
  });

  it('audit events: `audit --json` is GET /audit-events with the same filters', async () => {
    // The API call writes this instance's queued events first; the CLI then reads the same rows.
    const page = (await api('/audit-events?event=admin.&limit=1', tokens.audit)) as { items: unknown[]; next: string | null };
    expect(page.items).toHaveLength(1);
    expect(page.next).not.toBeNull();
    expect(await cli(['audit', '--event', 'admin.', '--limit', '1', '--json'])).toEqual(page);
    expect(await cli(['audit', '--event', 'admin.', '--after', page.next!, '--json'])).toEqual(await api(`/audit-events?event=admin.&after=${page.next}`, tokens.audit));
  });
});
