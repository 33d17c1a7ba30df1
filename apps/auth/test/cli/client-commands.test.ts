/**
 * `authctl client rotate-secret / update / show` on the client service: exact output, exit codes,
 * the stored result and the audit lines, on SQLite and PostgreSQL. Time is pinned by the CLI clock.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { runCli } from '../../src/cli/run-cli.ts';
import { createClientStore, type ClientStore } from '../../src/clients/client-store.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';

const NOW = Date.parse('2026-11-21T12:00:00.000Z');
const SECRET_LINE = /^client_secret: ([A-Za-z0-9_-]{43})$/;

describe.each(TEST_ENGINES)('authctl client rotate-secret / update / show on %s', (engine) => {
  let dir: string;
  let target: TestDatabase;
  let env: Record<string, string | undefined>;
  let audit: Record<string, unknown>[] = [];
  let now = NOW;

  async function cli(argv: string[]) {
    let stdout = '';
    let stderr = '';
    const log = (line: string) => audit.push(...line.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>));
    const code = await runCli(argv, { stdin: '', stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, clock: () => now, log });
    return { code, stdout, stderr };
  }

  async function withClients<T>(fn: (clients: ClientStore) => Promise<T>): Promise<T> {
    const config = loadConfig(env);
    const database = await openAuthDatabase(config.databaseUrl);
    try {
      return await fn(createClientStore(database.db, createSecretBox(config.encryptionKey), () => now));
    } finally {
      await database.close();
    }
  }

  const auditOf = (event: string) =>
    audit
      .filter((line) => line.event === event)
      .map(({ level: _l, time: _t, pid: _p, hostname: _h, msg: _m, name: _n, ...rest }) => rest);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authctl-client-'));
    target = await createTestDatabase(engine);
    env = { AUTH_DATABASE_URL: target.url, AUTH_DATA_DIR: dir, NODE_ENV: 'development' };
    expect((await cli(['client', 'add', 'svc', '--grant', 'client_credentials'])).code).toBe(0);
    expect((await cli(['client', 'add', 'spa', '--public', '--redirect-uri', 'https://spa.example/cb'])).code).toBe(0);
    expect((await cli(['client', 'add', 'web', '--redirect-uri', 'https://web.example/cb', '--post-logout-redirect-uri', 'https://web.example/bye', '--name', 'Web'])).code).toBe(0);
  });
  afterAll(async () => {
    await target.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rotate-secret prints the new secret once and when the old one stops; both work until then', async () => {
    audit = [];
    const before = await withClients(async (clients) => (await clients.find('svc'))!.clientSecret);
    const run = await cli(['client', 'rotate-secret', 'svc']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const lines = run.stdout.split('\n');
    expect(lines).toEqual([
      'rotated the secret of client svc',
      expect.stringMatching(SECRET_LINE),
      'Store the secret now: it is not shown again.',
      'The previous secret keeps working until 2026-11-22T12:00:00.000Z (grace 24h); deploy the new one before then.',
      '',
    ]);
    const secret = SECRET_LINE.exec(lines[1]!)![1]!;
    await withClients(async (clients) => {
      expect(await clients.find('svc')).toMatchObject({ clientSecret: secret, previousClientSecret: before, previousSecretExpiresAt: NOW + 86_400_000, secretRotatedAt: NOW });
    });
    expect(auditOf('admin.client.secret_rotated')).toEqual([
      { audit: true, event: 'admin.client.secret_rotated', actor_kind: 'operator', actor: 'cli', client_id: 'svc', grace_seconds: 86_400, previous_expires_at: '2026-11-22T12:00:00.000Z' },
    ]);
    expect(JSON.stringify(audit)).not.toContain(secret);
    expect(JSON.stringify(audit)).not.toContain(before);
    // Neither list nor show prints a secret.
    for (const argv of [['client', 'list'], ['client', 'list', '--json'], ['client', 'show', 'svc'], ['client', 'show', 'svc', '--json']]) {
      const shown = await cli(argv);
      expect(shown.code).toBe(0);
      expect(shown.stdout).not.toContain(secret);
      expect(shown.stdout).not.toContain(before);
    }
  });

  it('--grace takes 0, seconds and durations; --json prints the secret and the end as JSON', async () => {
    const json = await cli(['client', 'rotate-secret', 'svc', '--grace', '90m', '--json']);
    expect(json.code).toBe(0);
    const body = JSON.parse(json.stdout) as Record<string, unknown>;
    // The admin API's rotation answer: the client with its new secret (admin/json/client-json.ts).
    expect(body).toMatchObject({ client_id: 'svc', client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), previous_secret_expires_at: '2026-11-21T13:30:00.000Z', secret_rotated_at: '2026-11-21T12:00:00.000Z' });
    const seconds = await cli(['client', 'rotate-secret', 'svc', '--grace', '3601']);
    expect(seconds.stdout.split('\n')[3]).toBe('The previous secret keeps working until 2026-11-21T13:00:01.000Z (grace 3601s); deploy the new one before then.');
    const days = await cli(['client', 'rotate-secret', 'svc', '--grace', '30d', '--json']);
    expect(JSON.parse(days.stdout)).toMatchObject({ previous_secret_expires_at: '2026-12-21T12:00:00.000Z' });
    const zero = await cli(['client', 'rotate-secret', 'svc', '--grace', '0']);
    expect(zero.code).toBe(0);
    expect(zero.stdout.split('\n').slice(2)).toEqual(['Store the secret now: it is not shown again.', 'The previous secret no longer works.', '']);
    const zeroJson = await cli(['client', 'rotate-secret', 'svc', '--grace', '0', '--json']);
    const last = JSON.parse(zeroJson.stdout) as { client_secret: string; previous_secret_expires_at: unknown };
    expect(last.previous_secret_expires_at).toBeNull();
    await withClients(async (clients) => {
      const svc = (await clients.find('svc'))!;
      expect(svc.clientSecret).toBe(last.client_secret);
      expect(svc).not.toHaveProperty('previousClientSecret');
    });
  });

  it('rotate-secret refuses bad input, a public client and an unknown client with one line', async () => {
    const usage = 'authctl: error: client rotate-secret: --grace must be 0, whole seconds or a duration such as 90s, 30m, 24h or 7d (run "authctl help" for usage)\n';
    for (const grace of ['-1', '1.5', '24 h', 'h', '1w']) expect(await cli(['client', 'rotate-secret', 'svc', '--grace', grace])).toEqual({ code: 2, stdout: '', stderr: usage });
    expect(await cli(['client', 'rotate-secret', 'svc', '--grace', '31d'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: grace period must be whole seconds from 0 to 2592000 (30 days)\n',
    });
    expect(await cli(['client', 'rotate-secret', 'spa'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: client "spa" is public: it has no secret to rotate\n' });
    expect(await cli(['client', 'rotate-secret', 'ghost'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown client "ghost"\n' });
    expect(await cli(['client', 'rotate-secret'])).toEqual({ code: 2, stdout: '', stderr: 'authctl: error: client rotate-secret: missing <client_id> (run "authctl help" for usage)\n' });
  });

  it('update replaces the lists it is given and keeps the rest; show prints the client', async () => {
    audit = [];
    now = NOW + 60_000;
    const run = await cli(['client', 'update', 'web', '--redirect-uri', 'https://web.example/cb2', '--redirect-uri', 'http://localhost:4000/cb', '--grant', 'authorization_code', '--name', 'Web Two']);
    expect(run).toEqual({
      code: 0,
      stdout: [
        'updated client web',
        'client_id: web',
        'name: Web Two',
        'type: confidential',
        'auth_method: client_secret_basic',
        'grant_types: authorization_code',
        'response_types: code',
        'redirect_uris: https://web.example/cb2 http://localhost:4000/cb',
        'post_logout_redirect_uris: https://web.example/bye',
        'first_party: no',
        'dpop_bound_access_tokens: no',
        'created_at: 2026-11-21T12:00:00.000Z',
        'updated_at: 2026-11-21T12:01:00.000Z',
        '',
      ].join('\n'),
      stderr: '',
    });
    const json = await cli(['client', 'update', 'web', '--clear-post-logout-redirect-uris', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({
      client_id: 'web',
      name: 'Web Two',
      public: false,
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: ['https://web.example/cb2', 'http://localhost:4000/cb'],
      post_logout_redirect_uris: [],
      first_party: false,
      dpop_bound_access_tokens: false,
      jwks: null,
      jwks_uri: null,
      logo_uri: null,
      token_exchange: null,
      backchannel_logout_uri: null,
      backchannel_logout_session_required: false,
      id_token_field: null,
      created_at: '2026-11-21T12:00:00.000Z',
      updated_at: '2026-11-21T12:01:00.000Z',
      secret_rotated_at: null,
      previous_secret_expires_at: null,
    });
    expect(JSON.parse((await cli(['client', 'show', 'web', '--json'])).stdout)).toEqual(JSON.parse(json.stdout));
    expect(auditOf('admin.client.updated')).toEqual([
      { audit: true, event: 'admin.client.updated', actor_kind: 'operator', actor: 'cli', client_id: 'web', fields: 'redirect_uris,grant_types,name' },
      { audit: true, event: 'admin.client.updated', actor_kind: 'operator', actor: 'cli', client_id: 'web', fields: 'post_logout_redirect_uris' },
    ]);
  });

  it('update refuses nothing to do, conflicting options, a bad URI or grant, and an unknown client', async () => {
    expect(await cli(['client', 'update', 'web'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'authctl: error: client update: nothing to update (give --redirect-uri, --post-logout-redirect-uri, --grant, --name, --auth-method, --jwks, --jwks-uri, --response-type, --[no-]first-party, --[no-]require-dpop, --logo-uri, --no-logo-uri, --exchange-audience, --exchange-scope, --[no-]backchannel-logout-uri, --[no-]backchannel-logout-session-required or a --clear-... option) (run "authctl help" for usage)\n',
    });
    expect(await cli(['client', 'update', 'web', '--redirect-uri', 'https://a.example/cb', '--clear-redirect-uris'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'authctl: error: client update: --redirect-uri and --clear-redirect-uris exclude each other (run "authctl help" for usage)\n',
    });
    expect(await cli(['client', 'update', 'web', '--clear-redirect-uris'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: at least one redirect URI is required for the authorization_code grant\n',
    });
    expect(await cli(['client', 'update', 'web', '--redirect-uri', 'http://web.example/cb'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: redirect URI "http://web.example/cb" must use https; http is allowed only for localhost and 127.0.0.1\n',
    });
    expect(await cli(['client', 'update', 'spa', '--grant', 'client_credentials'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: a public client cannot use the client_credentials grant\n',
    });
    expect(await cli(['client', 'update', 'ghost', '--name', 'x'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown client "ghost"\n' });
    expect(await cli(['client', 'show', 'ghost'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown client "ghost"\n' });
    await withClients(async (clients) => {
      expect((await clients.find('web'))!.redirectUris).toEqual(['https://web.example/cb2', 'http://localhost:4000/cb']);
    });
  });

  it('add and remove go through the service too: audited as the cli operator', async () => {
    audit = [];
    expect((await cli(['client', 'add', 'temp', '--grant', 'client_credentials'])).code).toBe(0);
    expect(await cli(['client', 'remove', 'temp'])).toEqual({ code: 0, stdout: 'removed client temp\n', stderr: '' });
    expect([...auditOf('admin.client.created'), ...auditOf('admin.client.removed')]).toEqual([
      { audit: true, event: 'admin.client.created', actor_kind: 'operator', actor: 'cli', client_id: 'temp', public: false },
      { audit: true, event: 'admin.client.removed', actor_kind: 'operator', actor: 'cli', client_id: 'temp' },
    ]);
  });

  it('add takes the interop metadata: first-party, DPoP, response types, private_key_jwt keys by file or URL', async () => {
    const jwk = { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', kid: 'k1' };
    const keysFile = join(dir, 'keys.json');
    writeFileSync(keysFile, JSON.stringify({ keys: [jwk] }));
    expect(await cli(['client', 'add', 'pk', '--grant', 'client_credentials', '--auth-method', 'private_key_jwt', '--jwks', keysFile, '--require-dpop'])).toEqual({
      code: 0,
      stdout: 'created confidential client pk (private_key_jwt: it authenticates with its keys, no secret)\n',
      stderr: '',
    });
    expect(JSON.parse((await cli(['client', 'show', 'pk', '--json'])).stdout)).toMatchObject({
      token_endpoint_auth_method: 'private_key_jwt',
      grant_types: ['client_credentials'],
      response_types: [],
      first_party: false,
      dpop_bound_access_tokens: true,
      jwks: { keys: [jwk] },
    });
    const added = await cli(['client', 'add', 'eoc', '--redirect-uri', 'http://localhost:3000/callback', '--response-type', 'id_token', '--first-party', '--json']);
    expect(JSON.parse(added.stdout)).toMatchObject({ client_id: 'eoc', first_party: true, response_types: ['id_token'], client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const shown = await cli(['client', 'show', 'eoc']);
    expect(shown.stdout).toContain('\ngrant_types: implicit\nresponse_types: id_token\n');
    expect(shown.stdout).toContain('\nfirst_party: yes\ndpop_bound_access_tokens: no\n');
    expect((await cli(['client', 'add', 'by-uri', '--grant', 'client_credentials', '--auth-method', 'private_key_jwt', '--jwks-uri', 'https://keys.example/jwks.json'])).code).toBe(0);
    expect((await cli(['client', 'show', 'by-uri'])).stdout).toContain('\njwks_uri: https://keys.example/jwks.json\n');
    expect((await cli(['client', 'show', 'pk'])).stdout).toContain('\njwks: k1\n');
    expect((await cli(['client', 'add', 'hs', '--grant', 'client_credentials', '--auth-method', 'client_secret_jwt'])).stdout).toMatch(/^created confidential client hs\nclient_secret: [A-Za-z0-9_-]{43}\n/);
    await withClients(async (clients) => {
      expect(await clients.find('pk')).toMatchObject({ tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [jwk] }, dpopBoundAccessTokens: true });
      expect(await clients.find('pk')).not.toHaveProperty('clientSecret');
      expect(await clients.find('eoc')).toMatchObject({ firstParty: true, responseTypes: ['id_token'], grantTypes: ['implicit'] });
    });
  });

  it('add --public --grant urn:…:device_code (or device_code) registers a CLI or TV app without a redirect URI', async () => {
    const grant = 'urn:ietf:params:oauth:grant-type:device_code';
    expect(await cli(['client', 'add', 'tv', '--public', '--grant', grant, '--name', 'Living Room TV'])).toEqual({ code: 0, stdout: 'created public client tv\n', stderr: '' });
    const shown = await cli(['client', 'show', 'tv']);
    expect(shown.stdout).toContain(`\ngrant_types: ${grant}\nresponse_types: \n`);
    await withClients(async (clients) => {
      expect(await clients.find('tv')).toMatchObject({ public: true, tokenEndpointAuthMethod: 'none', grantTypes: [grant], redirectUris: [] });
    });
    // `device_code` stands for the URN.
    expect((await cli(['client', 'add', 'agent', '--public', '--grant', 'device_code', '--grant', 'refresh_token'])).code).toBe(0);
    expect((await cli(['client', 'show', 'agent'])).stdout).toContain(`\ngrant_types: ${grant} refresh_token\n`);
  });

  it('add refuses bad interop options with one line: usage errors exit 2, refused values exit 1', async () => {
    const keysFile = join(dir, 'private.json');
    writeFileSync(keysFile, JSON.stringify({ keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'secret' }] }));
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, 'keys: nope');
    const usage = (message: string) => ({ code: 2, stdout: '', stderr: `authctl: error: ${message} (run "authctl help" for usage)\n` });
    const m2m = ['--grant', 'client_credentials'];
    expect(await cli(['client', 'add', 'x', ...m2m, '--auth-method', 'private_key_jwt'])).toEqual(usage('client add: --auth-method private_key_jwt needs --jwks <file> or --jwks-uri <url>'));
    expect(await cli(['client', 'add', 'x', ...m2m, '--jwks', keysFile])).toEqual(usage('client add: --jwks and --jwks-uri need --auth-method private_key_jwt'));
    expect(await cli(['client', 'add', 'x', ...m2m, '--auth-method', 'private_key_jwt', '--jwks', keysFile, '--jwks-uri', 'https://k.example/j'])).toEqual(usage('client add: --jwks and --jwks-uri exclude each other'));
    expect(await cli(['client', 'add', 'x', ...m2m, '--auth-method', 'private_key_jwt', '--jwks', join(dir, 'missing.json')])).toEqual(usage(`client add: --jwks: cannot read the file "${join(dir, 'missing.json')}"`));
    expect(await cli(['client', 'add', 'x', ...m2m, '--auth-method', 'private_key_jwt', '--jwks', notJson])).toEqual(usage(`client add: --jwks: the file "${notJson}" is not JSON (expected a JWK Set: {"keys": [...]})`));
    expect(await cli(['client', 'add', 'x', '--redirect-uri', 'https://x.example/cb', '--response-type', 'token'])).toEqual(usage('client add: --response-type must be code or id_token (repeat it for both), not "token"'));
    expect(await cli(['client', 'add', 'x', '--response-type', 'id_token'])).toEqual(usage('client add: missing required option --redirect-uri (or use --grant client_credentials)'));
    expect(await cli(['client', 'add', 'x', ...m2m, '--auth-method', 'private_key_jwt', '--jwks', keysFile])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: jwks key 0 has the private member "d": register the public keys only\n',
    });
    expect(await cli(['client', 'add', 'x', ...m2m, '--auth-method', 'private_key_jwt', '--jwks-uri', 'http://keys.example/j'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: jwks_uri "http://keys.example/j" must use https; http is allowed only for localhost and 127.0.0.1\n',
    });
    await withClients(async (clients) => expect(await clients.find('x')).toBeUndefined());
  });

  it('update changes the interop metadata, and turns first-party and DPoP off again', async () => {
    audit = [];
    const run = await cli(['client', 'update', 'web', '--first-party', '--require-dpop', '--response-type', 'code', '--response-type', 'id_token', '--json']);
    expect(JSON.parse(run.stdout)).toMatchObject({ first_party: true, dpop_bound_access_tokens: true, response_types: ['code', 'id_token'], grant_types: ['authorization_code', 'implicit'] });
    const off = await cli(['client', 'update', 'web', '--no-first-party', '--no-require-dpop', '--json']);
    expect(JSON.parse(off.stdout)).toMatchObject({ first_party: false, dpop_bound_access_tokens: false });
    expect(await cli(['client', 'update', 'web', '--first-party', '--no-first-party'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'authctl: error: client update: --first-party and --no-first-party exclude each other (run "authctl help" for usage)\n',
    });
    expect(JSON.parse((await cli(['client', 'update', 'pk', '--jwks-uri', 'https://keys.example/pk.json', '--json'])).stdout)).toMatchObject({ jwks_uri: 'https://keys.example/pk.json' });
    expect(await cli(['client', 'update', 'hs', '--auth-method', 'client_secret_post', '--json'])).toMatchObject({ code: 0 });
    expect(await cli(['client', 'update', 'pk', '--auth-method', 'client_secret_basic'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: client "pk" has no secret: rotate its secret first, then choose client_secret_basic\n',
    });
    expect(auditOf('admin.client.updated').map((line) => line.fields)).toEqual([
      'first_party,response_types,dpop_bound_access_tokens',
      'first_party,dpop_bound_access_tokens',
      'jwks_uri',
      'token_endpoint_auth_method',
    ]);
  });

  it('add and update take --logo-uri; show and --json print it; update --no-logo-uri removes it', async () => {
    audit = [];
    expect(await cli(['client', 'add', 'branded', '--redirect-uri', 'https://branded.example/cb', '--logo-uri', 'https://cdn.branded.example/logo.png'])).toMatchObject({ code: 0, stderr: '' });
    expect((await cli(['client', 'show', 'branded'])).stdout).toContain('\nlogo_uri: https://cdn.branded.example/logo.png\n');
    expect(JSON.parse((await cli(['client', 'show', 'branded', '--json'])).stdout)).toMatchObject({ logo_uri: 'https://cdn.branded.example/logo.png' });
    const changed = await cli(['client', 'update', 'branded', '--logo-uri', 'http://127.0.0.1:8080/logo.svg', '--json']);
    expect(JSON.parse(changed.stdout)).toMatchObject({ client_id: 'branded', logo_uri: 'http://127.0.0.1:8080/logo.svg' });
    const removed = await cli(['client', 'update', 'branded', '--no-logo-uri', '--json']);
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ logo_uri: null });
    expect((await cli(['client', 'show', 'branded'])).stdout).not.toContain('logo_uri');
    expect(await cli(['client', 'update', 'branded', '--logo-uri', 'https://a.example/l.png', '--no-logo-uri'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'authctl: error: client update: --logo-uri and --no-logo-uri exclude each other (run "authctl help" for usage)\n',
    });
    expect(await cli(['client', 'update', 'branded', '--logo-uri', 'http://cdn.example/logo.png'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: logo_uri "http://cdn.example/logo.png" must use https; http is allowed only for localhost and 127.0.0.1\n',
    });
    expect(await cli(['client', 'add', 'bad-logo', '--redirect-uri', 'https://bad.example/cb', '--logo-uri', 'https://cdn.example/logo.png#x'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: logo_uri "https://cdn.example/logo.png#x" must not contain a fragment\n',
    });
    await withClients(async (clients) => {
      expect(await clients.find('branded')).not.toHaveProperty('logoUri');
      expect(await clients.find('bad-logo')).toBeUndefined();
    });
    expect(auditOf('admin.client.updated').map((line) => line.fields)).toEqual(['logo_uri', 'logo_uri']);
  });

  it('add and update take --grant token-exchange with --exchange-audience / --exchange-scope; show and --json print the policy', async () => {
    audit = [];
    const added = await cli(['client', 'add', 'reports', '--grant', 'token-exchange', '--exchange-audience', 'https://api.example', '--exchange-scope', 'movies:read', '--exchange-scope', 'cars:read', '--json']);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      client_id: 'reports',
      grant_types: ['urn:ietf:params:oauth:grant-type:token-exchange'],
      response_types: [],
      redirect_uris: [],
      token_exchange: { audiences: ['https://api.example'], scopes: ['movies:read', 'cars:read'] },
    });
    const shown = (await cli(['client', 'show', 'reports'])).stdout;
    expect(shown).toContain('\ngrant_types: urn:ietf:params:oauth:grant-type:token-exchange\n');
    expect(shown).toContain('\ntoken_exchange_audiences: https://api.example\ntoken_exchange_scopes: movies:read cars:read\n');
    // One list given: the other is kept.
    const changed = await cli(['client', 'update', 'reports', '--exchange-scope', 'movies:read', '--json']);
    expect(JSON.parse(changed.stdout)).toMatchObject({ token_exchange: { audiences: ['https://api.example'], scopes: ['movies:read'] } });
    expect(auditOf('admin.client.updated')).toEqual([{ audit: true, event: 'admin.client.updated', actor_kind: 'operator', actor: 'cli', client_id: 'reports', fields: 'token_exchange' }]);
    // Dropping the grant drops the policy.
    const dropped = await cli(['client', 'update', 'reports', '--grant', 'client_credentials', '--json']);
    expect(JSON.parse(dropped.stdout)).toMatchObject({ grant_types: ['client_credentials'], token_exchange: null });
    expect((await cli(['client', 'show', 'reports'])).stdout).not.toContain('token_exchange');
    expect(await cli(['client', 'update', 'reports', '--exchange-scope', 'movies:read'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'authctl: error: client update: --exchange-scope needs --exchange-audience too (the audiences the client may exchange for) (run "authctl help" for usage)\n',
    });
    expect(await cli(['client', 'add', 'no-policy', '--grant', 'token-exchange'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: the token-exchange grant needs a token_exchange policy (audiences and scopes)\n',
    });
    await withClients(async (clients) => expect(await clients.find('no-policy')).toBeUndefined());
  });

  it('add and update take the back-channel logout URI and session requirement; show prints them; update removes them', async () => {
    audit = [];
    expect(
      await cli(['client', 'add', 'bc', '--redirect-uri', 'https://bc.example/cb', '--backchannel-logout-uri', 'https://bc.example/backchannel-logout', '--backchannel-logout-session-required']),
    ).toMatchObject({ code: 0, stderr: '' });
    const shown = (await cli(['client', 'show', 'bc'])).stdout;
    expect(shown).toContain('\nbackchannel_logout_uri: https://bc.example/backchannel-logout\nbackchannel_logout_session_required: yes\n');
    expect(JSON.parse((await cli(['client', 'show', 'bc', '--json'])).stdout)).toMatchObject({ backchannel_logout_uri: 'https://bc.example/backchannel-logout', backchannel_logout_session_required: true });
    const off = await cli(['client', 'update', 'bc', '--no-backchannel-logout-session-required', '--json']);
    expect(JSON.parse(off.stdout)).toMatchObject({ backchannel_logout_uri: 'https://bc.example/backchannel-logout', backchannel_logout_session_required: false });
    const removed = await cli(['client', 'update', 'bc', '--backchannel-logout-session-required', '--no-backchannel-logout-uri', '--json']);
    expect(removed).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: backchannel_logout_session_required needs a backchannel_logout_uri\n' });
    const gone = await cli(['client', 'update', 'bc', '--no-backchannel-logout-uri', '--json']);
    expect(JSON.parse(gone.stdout)).toMatchObject({ backchannel_logout_uri: null, backchannel_logout_session_required: false });
    expect((await cli(['client', 'show', 'bc'])).stdout).not.toContain('backchannel_logout');
    expect(await cli(['client', 'update', 'bc', '--backchannel-logout-uri', 'https://a.example/b', '--no-backchannel-logout-uri'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'authctl: error: client update: --backchannel-logout-uri and --no-backchannel-logout-uri exclude each other (run "authctl help" for usage)\n',
    });
    expect(await cli(['client', 'add', 'bc-spa', '--public', '--redirect-uri', 'https://bc.example/cb', '--backchannel-logout-uri', 'http://bc.example/logout'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: backchannel_logout_uri "http://bc.example/logout" must use https; http is allowed only for a confidential client, or for localhost and 127.0.0.1\n',
    });
    // A confidential client may use http (Back-Channel Logout 1.0 §2.2), e.g. the app's address on the compose network.
    const plain = await cli(['client', 'update', 'bc', '--backchannel-logout-uri', 'http://app-one:3001/backchannel-logout', '--json']);
    expect(JSON.parse(plain.stdout)).toMatchObject({ backchannel_logout_uri: 'http://app-one:3001/backchannel-logout' });
    expect(await cli(['client', 'add', 'bc-two', '--redirect-uri', 'https://bc.example/cb', '--backchannel-logout-session-required'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: backchannel_logout_session_required needs a backchannel_logout_uri\n',
    });
    expect(auditOf('admin.client.updated').map((line) => line.fields)).toEqual(['backchannel_logout_session_required', 'backchannel_logout_uri', 'backchannel_logout_uri']);
  });
});
