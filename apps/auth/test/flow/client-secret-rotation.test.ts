/**
 * Client secret rotation with a grace period (admin/client-admin.ts, oidc/client-secret-check.ts)
 * against a running server: the new secret works at once; the replaced one keeps working at the
 * token, introspection and revocation endpoints (client_secret_basic and client_secret_post) and
 * at the revocation feed (which authenticates it, then answers 403: only the API's client reads
 * it) until the grace period ends, then gets invalid_client (401). Time moves
 * only by the injected clock. Also the service's other changes seen on the wire, and its audit lines.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditor } from '../../src/audit/auditor.ts';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { CLI_OPERATOR } from '../../src/audit/actor.ts';
import { createClientAdmin, type ClientAdmin } from '../../src/admin/client-admin.ts';
import { ClientRegistryError } from '../../src/clients/client-store.ts';
import { basic, request, CookieJar, startServer, type TestAuthServer } from '../support/flow.ts';

const HOUR = 3_600_000;
const INVALID_CLIENT = { error: 'invalid_client', error_description: 'client authentication failed' };

type Auth = { method: 'basic' | 'post'; clientId: string; secret: string };

describe.each(TEST_ENGINES)('client secret rotation on %s', (engine) => {
  let server: TestAuthServer;
  let admin: ClientAdmin;
  const clock = { now: Date.now() };
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now });
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    admin = createClientAdmin({ clients: server.app.services.clients, audit: createAuditor({ logger: pino({ level: 'info' }, sink) }) });
  });
  afterAll(() => server.close());

  async function post(path: string, auth: Auth, params: Record<string, string>) {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    const body = new URLSearchParams(params);
    if (auth.method === 'basic') headers.authorization = basic(auth.clientId, auth.secret);
    else {
      body.set('client_id', auth.clientId);
      body.set('client_secret', auth.secret);
    }
    const response = await fetch(`${server.issuer}${path}`, { method: 'POST', headers, body });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> | undefined };
  }
  const token = (auth: Auth) => post('/oauth2/v1/token', auth, { grant_type: 'client_credentials', scope: 'movies:read' });
  const introspect = (auth: Auth, t: string) => post('/oauth2/v1/introspect', auth, { token: t });
  const revoke = (auth: Auth, t: string) => post('/oauth2/v1/revoke', auth, { token: t });
  const feed = async (clientId: string, secret: string) => (await fetch(`${server.issuer}/oauth2/v1/revocations`, { headers: { authorization: basic(clientId, secret) } })).status;

  async function machineClient(clientId: string, authMethod: 'client_secret_basic' | 'client_secret_post') {
    const created = await admin.create(CLI_OPERATOR, { clientId, redirectUris: [], grantTypes: ['client_credentials'], authMethod });
    return created.clientSecret!;
  }
  async function accessToken(auth: Auth): Promise<string> {
    const issued = await token(auth);
    expect(issued.status).toBe(200);
    return String(issued.body!.access_token);
  }

  it('the new secret works at once; the old one at token, introspection and revocation (basic) and the feed during the grace period, not after', async () => {
    const oldSecret = await machineClient('svc-basic', 'client_secret_basic');
    const before = await accessToken({ method: 'basic', clientId: 'svc-basic', secret: oldSecret });
    const rotatedAt = clock.now;
    const rotated = await admin.rotateSecret(CLI_OPERATOR, 'svc-basic');
    expect(rotated.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated.clientSecret).not.toBe(oldSecret);
    expect(rotated.previousSecretExpiresAt).toBe(rotatedAt + 24 * HOUR);
    expect(rotated.client).toMatchObject({ clientId: 'svc-basic', previousSecretExpiresAt: rotatedAt + 24 * HOUR, secretRotatedAt: rotatedAt, updatedAt: rotatedAt });
    expect(rotated.client).not.toHaveProperty('clientSecret');
    expect(rotated.client).not.toHaveProperty('previousClientSecret');

    const fresh: Auth = { method: 'basic', clientId: 'svc-basic', secret: rotated.clientSecret };
    const old: Auth = { method: 'basic', clientId: 'svc-basic', secret: oldSecret };
    const wrong: Auth = { method: 'basic', clientId: 'svc-basic', secret: `${oldSecret}x` };
    const fromNew = await accessToken(fresh);
    const fromOld = await accessToken(old);
    expect(await token(wrong)).toEqual({ status: 401, body: INVALID_CLIENT });

    expect(await introspect(old, before)).toMatchObject({ status: 200, body: { active: true, client_id: 'svc-basic' } });
    expect(await introspect(fresh, fromOld)).toMatchObject({ status: 200, body: { active: true, client_id: 'svc-basic' } });
    expect(await revoke(old, fromNew)).toEqual({ status: 200, body: undefined });
    expect((await introspect(fresh, fromNew)).body).toEqual({ active: false });
    // The feed authenticates both secrets (403: svc-basic is not the resource server's client, which alone reads it).
    expect(await feed('svc-basic', oldSecret)).toBe(403);
    expect(await feed('svc-basic', rotated.clientSecret)).toBe(403);

    // The last millisecond of the grace period still accepts the old secret; its end does not.
    clock.now = rotatedAt + 24 * HOUR - 1;
    expect((await token(old)).status).toBe(200);
    clock.now = rotatedAt + 24 * HOUR;
    expect(await token(old)).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(await introspect(old, fromOld)).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(await revoke(old, fromOld)).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(await feed('svc-basic', oldSecret)).toBe(401);
    expect((await token(fresh)).status).toBe(200);
    expect(await feed('svc-basic', rotated.clientSecret)).toBe(403);
    expect((await admin.get('svc-basic'))).not.toHaveProperty('previousSecretExpiresAt');
  });

  it('client_secret_post: the old secret works at token, introspection and revocation during the grace period, not after', async () => {
    clock.now = Date.now();
    const oldSecret = await machineClient('svc-post', 'client_secret_post');
    const rotated = await admin.rotateSecret(CLI_OPERATOR, 'svc-post', { graceSeconds: 600 });
    expect(rotated.previousSecretExpiresAt).toBe(clock.now + 600_000);
    const old: Auth = { method: 'post', clientId: 'svc-post', secret: oldSecret };
    const fresh: Auth = { method: 'post', clientId: 'svc-post', secret: rotated.clientSecret };
    const t = await accessToken(old);
    expect((await token(fresh)).status).toBe(200);
    expect(await introspect(old, t)).toMatchObject({ status: 200, body: { active: true, client_id: 'svc-post' } });
    expect(await revoke(old, t)).toEqual({ status: 200, body: undefined });
    // Only the registered method: the old secret in a Basic header is refused like any secret there.
    expect(await token({ ...old, method: 'basic' })).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(await token({ ...fresh, method: 'basic' })).toEqual({ status: 401, body: INVALID_CLIENT });

    clock.now += 600_000;
    expect(await token(old)).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(await introspect(old, t)).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(await revoke(old, t)).toEqual({ status: 401, body: INVALID_CLIENT });
    expect((await token(fresh)).status).toBe(200);
  });

  it('grace 0 ends the old secret at once; rotating during a grace period keeps only the secret just replaced', async () => {
    clock.now = Date.now();
    const first = await machineClient('svc-twice', 'client_secret_basic');
    const auth = (secret: string): Auth => ({ method: 'basic', clientId: 'svc-twice', secret });
    const second = await admin.rotateSecret(CLI_OPERATOR, 'svc-twice', { graceSeconds: 3600 });
    const third = await admin.rotateSecret(CLI_OPERATOR, 'svc-twice', { graceSeconds: 7200 });
    expect(third.previousSecretExpiresAt).toBe(clock.now + 2 * HOUR);
    expect(await token(auth(first))).toEqual({ status: 401, body: INVALID_CLIENT });
    expect((await token(auth(second.clientSecret))).status).toBe(200);
    expect((await token(auth(third.clientSecret))).status).toBe(200);

    const fourth = await admin.rotateSecret(CLI_OPERATOR, 'svc-twice', { graceSeconds: 0 });
    expect(fourth).not.toHaveProperty('previousSecretExpiresAt');
    expect(fourth.client).not.toHaveProperty('previousSecretExpiresAt');
    expect(await token(auth(second.clientSecret))).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(await token(auth(third.clientSecret))).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(await feed('svc-twice', third.clientSecret)).toBe(401);
    expect((await token(auth(fourth.clientSecret))).status).toBe(200);
  });

  it('refuses a public client, an unknown client and a bad grace period with a coded error', async () => {
    const refused = async (promise: Promise<unknown>) => {
      const error = await promise.then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ClientRegistryError);
      return { code: (error as ClientRegistryError).code, message: (error as ClientRegistryError).message };
    };
    await admin.create(CLI_OPERATOR, { clientId: 'spa-rot', redirectUris: ['https://spa.example/cb'], public: true });
    expect(await refused(admin.rotateSecret(CLI_OPERATOR, 'spa-rot'))).toEqual({ code: 'public_client', message: 'client "spa-rot" is public: it has no secret to rotate' });
    expect(await refused(admin.rotateSecret(CLI_OPERATOR, 'nobody'))).toEqual({ code: 'unknown_client', message: 'unknown client "nobody"' });
    const grace = { code: 'invalid_input', message: 'grace period must be whole seconds from 0 to 2592000 (30 days)' };
    for (const graceSeconds of [-1, 1.5, 2_592_001, Number.NaN]) expect(await refused(admin.rotateSecret(CLI_OPERATOR, 'svc-basic', { graceSeconds }))).toEqual(grace);
    expect((await admin.rotateSecret(CLI_OPERATOR, 'svc-basic', { graceSeconds: 2_592_000 })).previousSecretExpiresAt).toBe(clock.now + 30 * 24 * HOUR);
  });

  it('an update takes effect at once; a removed client can no longer authenticate', async () => {
    clock.now = Date.now();
    const created = await admin.create(CLI_OPERATOR, { clientId: 'web-upd', redirectUris: ['https://one.example/cb'], name: 'Web' });
    const authorize = (redirectUri: string) =>
      request(new CookieJar(), `${server.issuer}/oauth2/v1/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'web-upd', redirect_uri: redirectUri, scope: 'openid' })}`);
    expect((await authorize('https://one.example/cb')).status).toBe(200);
    expect((await authorize('https://two.example/cb')).status).toBe(400);
    const updated = await admin.update(CLI_OPERATOR, 'web-upd', { redirectUris: ['https://two.example/cb'], grantTypes: ['authorization_code', 'client_credentials'] });
    expect(updated).toMatchObject({ redirectUris: ['https://two.example/cb'], grantTypes: ['authorization_code', 'client_credentials'], name: 'Web', updatedAt: clock.now });
    expect((await authorize('https://one.example/cb')).status).toBe(400);
    expect((await authorize('https://two.example/cb')).status).toBe(200);
    const machine: Auth = { method: 'basic', clientId: 'web-upd', secret: created.clientSecret! };
    const issued = await accessToken(machine);
    const api: Auth = { method: 'basic', ...server.introspectionClient, secret: server.introspectionClient.clientSecret };
    expect(await introspect(api, issued)).toMatchObject({ status: 200, body: { active: true, client_id: 'web-upd' } });

    await admin.remove(CLI_OPERATOR, 'web-upd');
    expect(await token(machine)).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(await introspect(api, issued)).toEqual({ status: 200, body: { active: false } });
  });

  it('audits every change with the actor and the client, never a secret', async () => {
    const events = lines.filter((l) => typeof l.event === 'string' && String(l.event).startsWith('admin.client.'));
    const pick = (l: Record<string, unknown>) => {
      const { level: _l, time: _t, pid: _p, hostname: _h, msg: _m, ...rest } = l;
      return rest;
    };
    const actor = { audit: true, actor_kind: 'operator', actor: 'cli' };
    expect(events.map(pick)).toEqual([
      { event: 'admin.client.created', ...actor, client_id: 'svc-basic', public: false },
      { event: 'admin.client.secret_rotated', ...actor, client_id: 'svc-basic', grace_seconds: 86_400, previous_expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
      { event: 'admin.client.created', ...actor, client_id: 'svc-post', public: false },
      { event: 'admin.client.secret_rotated', ...actor, client_id: 'svc-post', grace_seconds: 600, previous_expires_at: expect.any(String) },
      { event: 'admin.client.created', ...actor, client_id: 'svc-twice', public: false },
      { event: 'admin.client.secret_rotated', ...actor, client_id: 'svc-twice', grace_seconds: 3600, previous_expires_at: expect.any(String) },
      { event: 'admin.client.secret_rotated', ...actor, client_id: 'svc-twice', grace_seconds: 7200, previous_expires_at: expect.any(String) },
      { event: 'admin.client.secret_rotated', ...actor, client_id: 'svc-twice', grace_seconds: 0 },
      { event: 'admin.client.created', ...actor, client_id: 'spa-rot', public: true },
      { event: 'admin.client.secret_rotated', ...actor, client_id: 'svc-basic', grace_seconds: 2_592_000, previous_expires_at: expect.any(String) },
      { event: 'admin.client.created', ...actor, client_id: 'web-upd', public: false },
      { event: 'admin.client.updated', ...actor, client_id: 'web-upd', fields: 'redirect_uris,grant_types' },
      { event: 'admin.client.removed', ...actor, client_id: 'web-upd' },
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/[A-Za-z0-9_-]{43}/);
  });
});
