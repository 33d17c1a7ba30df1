/**
 * /admin/v1/clients over HTTP on SQLite and PostgreSQL: list (keyset paging), get, create (201,
 * Location, the secret once), update, rotate the secret (the old one works during the grace
 * period, then gets invalid_client), remove (204); 401 without a token, 403 without
 * admin:clients:write, 400 problems naming the field, 404 and 409 problems; reads never carry a
 * secret; every change is audited with the calling client as the actor.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { startServer, type TestAuthServer } from '../support/flow.ts';
import { addAdminClient, ADMIN_CLIENT, call, machineToken, problemOf } from './admin-support.ts';

const HOUR = 3_600_000;

describe.each(TEST_ENGINES)('clients over the admin API on %s', (engine) => {
  let server: TestAuthServer;
  let token: string;
  const clock = { now: Date.now() };
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    server = await startServer({ engine, clock: () => clock.now, logger: pino({ level: 'info' }, sink) });
    await addAdminClient(server);
    token = await machineToken(server, 'admin:clients:write');
  });
  afterAll(() => server.close());

  /** A token for a client_secret_post client (svc-one), by the method it is registered for. */
  async function clientCredentials(clientId: string, secret: string) {
    const response = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'movies:read', client_id: clientId, client_secret: secret }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('401 without a token, 403 with a token lacking admin:clients:write, on every route', async () => {
    const reader = await machineToken(server, 'admin:users:read admin:users:write admin:keys');
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/clients'],
      ['GET', '/clients/test-app'],
      ['POST', '/clients', { client_id: 'x', grant_types: ['client_credentials'] }],
      ['PATCH', '/clients/test-app', { name: 'x' }],
      ['POST', '/clients/test-app/secret/rotate', {}],
      ['DELETE', '/clients/test-app'],
    ];
    for (const [method, path, body] of routes) {
      const anonymous = await call(server, method, path, { token: null, ...(body !== undefined ? { body } : {}) });
      expect(anonymous.status, `${method} ${path}`).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
      expect(anonymous.body).toMatchObject(problemOf(401, 'invalid_token', path));
      const forbidden = await call(server, method, path, { token: reader, ...(body !== undefined ? { body } : {}) });
      expect(forbidden.status, `${method} ${path}`).toBe(403);
      expect(forbidden.body).toMatchObject({ ...problemOf(403, 'insufficient_scope', path), detail: 'This request needs the scope admin:clients:write.' });
    }
    expect((await server.app.services.clients.find('test-app'))!.name).toBe('Test App');
  });

  it('creates a confidential client: 201, Location, the secret in this answer only', async () => {
    const created = await call(server, 'POST', '/clients', {
      token,
      body: { client_id: 'svc-one', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post', name: 'Service One' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/admin/v1/clients/svc-one');
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toEqual({
      client_id: 'svc-one',
      name: 'Service One',
      public: false,
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
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
      created_at: new Date(clock.now).toISOString(),
      updated_at: null,
      secret_rotated_at: null,
      previous_secret_expires_at: null,
      client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const secret = String(created.body.client_secret);
    expect((await server.app.services.clients.find('svc-one'))!.clientSecret).toBe(secret);
    const read = await call(server, 'GET', '/clients/svc-one', { token });
    expect(read.status).toBe(200);
    const { client_secret: _s, ...withoutSecret } = created.body;
    expect(read.body).toEqual(withoutSecret);
    const spa = await call(server, 'POST', '/clients', { token, body: { client_id: 'spa-one', public: true, redirect_uris: ['https://spa.example/cb'] } });
    expect(spa.status).toBe(201);
    expect(spa.body).toMatchObject({ client_id: 'spa-one', public: true, token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] });
    expect(spa.body).not.toHaveProperty('client_secret');
  });

  it('lists clients by id with keyset paging, never a secret', async () => {
    const all = await call(server, 'GET', '/clients', { token });
    expect(all.status).toBe(200);
    const ids = (all.body.items as { client_id: string }[]).map((c) => c.client_id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(expect.arrayContaining(['admin-machine', 'api', 'app-two-test', 'spa-one', 'svc-one', 'test-app']));
    expect(all.body.next).toBeNull();
    for (const secret of [server.testClient.clientSecret, server.introspectionClient.clientSecret, ADMIN_CLIENT.clientSecret]) expect(JSON.stringify(all.body)).not.toContain(secret);
    const pages: string[] = [];
    let after: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof call>> = await call(server, 'GET', `/clients?limit=2${after ? `&after=${encodeURIComponent(after)}` : ''}`, { token });
      expect(page.status).toBe(200);
      const items = page.body.items as { client_id: string }[];
      expect(items.length).toBeLessThanOrEqual(2);
      pages.push(...items.map((c) => c.client_id));
      after = page.body.next as string | null;
    } while (after !== null);
    expect(pages).toEqual(ids);
  });

  it('bad input: 400 validation_failed naming the field', async () => {
    const cases: Array<[string, string, unknown, string, string]> = [
      ['POST', '/clients', { client_id: 'has space', grant_types: ['client_credentials'] }, 'client_id', 'client_id must be 1-128 characters of letters, digits, ".", "_" or "-"'],
      ['POST', '/clients', { client_id: 'web-x', redirect_uris: ['http://web.example/cb'] }, 'redirect_uris', 'redirect URI "http://web.example/cb" must use https; http is allowed only for localhost and 127.0.0.1'],
      ['POST', '/clients', { client_id: 'web-x', redirect_uris: ['https://web.example/cb'], post_logout_redirect_uris: ['https://web.example/#x'] }, 'post_logout_redirect_uris', 'redirect URI "https://web.example/#x" must not contain a fragment'],
      ['POST', '/clients', { client_id: 'web-x' }, 'redirect_uris', 'at least one redirect URI is required for the authorization_code grant'],
      ['POST', '/clients', { client_id: 'web-x', public: true, grant_types: ['client_credentials'] }, 'grant_types', 'a public client cannot use the client_credentials grant'],
      ['POST', '/clients', { client_id: 'web-x', grant_types: ['password'] }, 'grant_types', 'grant type "password" is not supported (use authorization_code, refresh_token, client_credentials, implicit, urn:ietf:params:oauth:grant-type:token-exchange, urn:ietf:params:oauth:grant-type:device_code)'],
      ['PATCH', '/clients/svc-one', { grant_types: ['authorization_code'] }, 'redirect_uris', 'at least one redirect URI is required for the authorization_code grant'],
      ['PATCH', '/clients/svc-one', { grant_types: [] }, 'grant_types', 'a client needs at least one grant type'],
      ['POST', '/clients', { client_id: 'web-x', grant_types: ['client_credentials'], token_endpoint_auth_method: 'tls_client_auth' }, 'token_endpoint_auth_method', expect.any(String) as unknown as string],
      ['POST', '/clients', { client_id: 'web-x', redirect_uris: ['https://web.example/cb'], response_types: ['token'] }, 'response_types.0', expect.any(String) as unknown as string],
      ['POST', '/clients', { client_id: 'web-x', grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt' }, 'jwks', 'a private_key_jwt client needs exactly one of jwks and jwks_uri'],
      ['POST', '/clients', { client_id: 'web-x', grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ kty: 'RSA', n: 'n', e: 'AQAB', d: 'private' }] } }, 'jwks', 'jwks key 0 has the private member "d": register the public keys only'],
      ['POST', '/clients', { client_id: 'web-x', grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'http://keys.example/jwks' }, 'jwks_uri', 'jwks_uri "http://keys.example/jwks" must use https; http is allowed only for localhost and 127.0.0.1'],
      ['POST', '/clients', { client_id: 'web-x', grant_types: ['client_credentials'], jwks_uri: 'https://keys.example/jwks' }, 'jwks_uri', 'jwks_uri applies only to the private_key_jwt auth method'],
      ['POST', '/clients', { client_id: 'web-x', grant_types: ['client_credentials'], first_party: 'yes' }, 'first_party', expect.any(String) as unknown as string],
      ['PATCH', '/clients/svc-one', { response_types: ['code'] }, 'redirect_uris', 'at least one redirect URI is required for the authorization_code grant'],
      ['POST', '/clients/svc-one/secret/rotate', { grace_seconds: 2_592_001 }, 'grace_seconds', expect.any(String) as unknown as string],
      ['POST', '/clients/svc-one/secret/rotate', { grace_seconds: 1.5 }, 'grace_seconds', expect.any(String) as unknown as string],
      ['GET', '/clients?after=garbage', undefined, 'after', 'the cursor is not one this server issued'],
      ['GET', '/clients?limit=201', undefined, 'limit', expect.any(String) as unknown as string],
    ];
    for (const [method, path, body, field, message] of cases) {
      const answer = await call(server, method, path, { token, ...(body !== undefined ? { body } : {}) });
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(answer.body).toMatchObject(problemOf(400, 'validation_failed', path.split('?')[0]!));
      expect(answer.body.errors).toEqual([{ field, message }]);
    }
    const unknownMember = await call(server, 'POST', '/clients', { token, body: { client_id: 'web-x', redirect_uris: ['https://web.example/cb'], client_secret: 'chosen-by-me' } });
    expect(unknownMember.status).toBe(400);
    expect(unknownMember.body.errors).toEqual([{ field: 'client_secret', message: 'is not a known field' }]);
    const empty = await call(server, 'PATCH', '/clients/svc-one', { token, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject(problemOf(400, 'validation_failed', '/clients/svc-one'));
    const notJson = await call(server, 'POST', '/clients', { token, rawBody: '{', contentType: 'application/json' });
    expect(notJson.body).toMatchObject(problemOf(400, 'malformed_body', '/clients'));
    expect(await server.app.services.clients.find('web-x')).toBeUndefined();
    // The rotation's body is optional; a body there is still JSON only, and POST /clients needs one.
    const form = await call(server, 'POST', '/clients/svc-one/secret/rotate', { token, rawBody: 'grace_seconds=0', contentType: 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(form.body).toMatchObject(problemOf(415, 'unsupported_media_type', '/clients/svc-one/secret/rotate'));
    const nullBody = await call(server, 'POST', '/clients/svc-one/secret/rotate', { token, rawBody: 'null' });
    expect(nullBody.status).toBe(400);
    expect(nullBody.body).toMatchObject(problemOf(400, 'validation_failed', '/clients/svc-one/secret/rotate'));
    const noBody = await call(server, 'POST', '/clients', { token });
    expect(noBody.status).toBe(415);
    expect((await server.app.services.clients.find('svc-one'))!.secretRotatedAt).toBeUndefined();
  });

  it('404 client_not_found and 409 duplicate_client / public_client', async () => {
    for (const [method, path, body] of [
      ['GET', '/clients/ghost', undefined],
      ['PATCH', '/clients/ghost', { name: 'x' }],
      ['POST', '/clients/ghost/secret/rotate', {}],
      ['DELETE', '/clients/ghost', undefined],
    ] as const) {
      const answer = await call(server, method, path, { token, ...(body !== undefined ? { body } : {}) });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body).toMatchObject({ ...problemOf(404, 'client_not_found', path), detail: 'There is no client with this id.' });
    }
    const duplicate = await call(server, 'POST', '/clients', { token, body: { client_id: 'svc-one', grant_types: ['client_credentials'] } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ ...problemOf(409, 'duplicate_client', '/clients'), detail: 'client "svc-one" already exists' });
    const publicClient = await call(server, 'POST', '/clients/spa-one/secret/rotate', { token });
    expect(publicClient.status).toBe(409);
    expect(publicClient.body).toMatchObject({ ...problemOf(409, 'public_client', '/clients/spa-one/secret/rotate'), detail: 'client "spa-one" is public: it has no secret to rotate' });
  });

  it('updates the given fields and keeps the rest', async () => {
    const answer = await call(server, 'PATCH', '/clients/spa-one', { token, body: { redirect_uris: ['https://spa.example/cb2'], name: 'The SPA' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      client_id: 'spa-one',
      name: 'The SPA',
      redirect_uris: ['https://spa.example/cb2'],
      grant_types: ['authorization_code', 'refresh_token'],
      updated_at: new Date(clock.now).toISOString(),
    });
    expect((await server.app.services.clients.find('spa-one'))!.redirectUris).toEqual(['https://spa.example/cb2']);
  });

  it('rotates the secret: the new one at once, the old one during the grace period only', async () => {
    const old = (await server.app.services.clients.find('svc-one'))!.clientSecret!;
    const rotatedAt = clock.now;
    const rotated = await call(server, 'POST', '/clients/svc-one/secret/rotate', { token, body: { grace_seconds: 3600 } });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({
      client_id: 'svc-one',
      client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      secret_rotated_at: new Date(rotatedAt).toISOString(),
      previous_secret_expires_at: new Date(rotatedAt + HOUR).toISOString(),
    });
    const fresh = String(rotated.body.client_secret);
    expect((await clientCredentials('svc-one', fresh)).status).toBe(200);
    expect((await clientCredentials('svc-one', old)).status).toBe(200);
    const read = await call(server, 'GET', '/clients/svc-one', { token });
    expect(read.body.previous_secret_expires_at).toBe(new Date(rotatedAt + HOUR).toISOString());
    expect(JSON.stringify(read.body)).not.toContain(fresh);
    expect(JSON.stringify(read.body)).not.toContain(old);

    clock.now = rotatedAt + HOUR;
    expect(await clientCredentials('svc-one', old)).toEqual({ status: 401, body: { error: 'invalid_client', error_description: 'client authentication failed' } });
    clock.now = rotatedAt;

    // No body: the default grace period (24 h).
    const byDefault = await call(server, 'POST', '/clients/svc-one/secret/rotate', { token });
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.previous_secret_expires_at).toBe(new Date(rotatedAt + 24 * HOUR).toISOString());
    const immediate = await call(server, 'POST', '/clients/svc-one/secret/rotate', { token, body: { grace_seconds: 0 } });
    expect(immediate.body.previous_secret_expires_at).toBeNull();
    expect((await clientCredentials('svc-one', String(byDefault.body.client_secret))).status).toBe(401);
    expect((await clientCredentials('svc-one', String(immediate.body.client_secret))).status).toBe(200);
  });

  it('removes a client: 204, then 404; its secret no longer works', async () => {
    const secret = (await server.app.services.clients.find('svc-one'))!.clientSecret!;
    const removed = await call(server, 'DELETE', '/clients/svc-one', { token });
    expect(removed.status).toBe(204);
    expect(removed.body).toEqual({});
    expect((await call(server, 'GET', '/clients/svc-one', { token })).status).toBe(404);
    expect((await clientCredentials('svc-one', secret)).status).toBe(401);
  });

  it('audits each change with the calling client as the actor, never a secret', async () => {
    const actor = { actor_kind: 'client', actor: ADMIN_CLIENT.clientId };
    const events = lines.filter((l) => String(l.event).startsWith('admin.client.'));
    expect(events.map((l) => [l.event, l.client_id, l.actor_kind, l.actor])).toEqual([
      ['admin.client.created', 'svc-one', actor.actor_kind, actor.actor],
      ['admin.client.created', 'spa-one', actor.actor_kind, actor.actor],
      ['admin.client.updated', 'spa-one', actor.actor_kind, actor.actor],
      ['admin.client.secret_rotated', 'svc-one', actor.actor_kind, actor.actor],
      ['admin.client.secret_rotated', 'svc-one', actor.actor_kind, actor.actor],
      ['admin.client.secret_rotated', 'svc-one', actor.actor_kind, actor.actor],
      ['admin.client.removed', 'svc-one', actor.actor_kind, actor.actor],
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/"[A-Za-z0-9_-]{43}"/);
  });

  it('registers a public client for the device authorization grant: no redirect URI, no secret', async () => {
    const grant = 'urn:ietf:params:oauth:grant-type:device_code';
    const created = await call(server, 'POST', '/clients', { token, body: { client_id: 'tv-one', public: true, grant_types: [grant, 'refresh_token'], name: 'TV One' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ client_id: 'tv-one', public: true, token_endpoint_auth_method: 'none', grant_types: [grant, 'refresh_token'], response_types: [], redirect_uris: [] });
    expect(created.body).not.toHaveProperty('client_secret');
    const changed = await call(server, 'PATCH', '/clients/tv-one', { token, body: { grant_types: [grant] } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ grant_types: [grant] });
    const openapi = await call(server, 'GET', '/openapi.json', { token });
    expect(JSON.stringify(openapi.body)).toContain(grant);
  });

  it('registers, reads and changes first_party, response_types, the auth method with its keys, and DPoP', async () => {
    const jwk = { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', kid: 'k1' };
    const pk = await call(server, 'POST', '/clients', {
      token,
      body: { client_id: 'pk-one', grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] }, dpop_bound_access_tokens: true },
    });
    expect(pk.status).toBe(201);
    expect(pk.body).toMatchObject({ client_id: 'pk-one', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] }, jwks_uri: null, dpop_bound_access_tokens: true, first_party: false, response_types: [] });
    // private_key_jwt: no secret, in this answer or stored.
    expect(pk.body).not.toHaveProperty('client_secret');
    expect(await server.app.services.clients.find('pk-one')).not.toHaveProperty('clientSecret');

    const eoc = await call(server, 'POST', '/clients', { token, body: { client_id: 'eoc-one', redirect_uris: ['http://localhost:3000/callback'], response_types: ['id_token'], first_party: true } });
    expect(eoc.status).toBe(201);
    expect(eoc.body).toMatchObject({ response_types: ['id_token'], grant_types: ['implicit'], first_party: true, token_endpoint_auth_method: 'client_secret_basic', client_secret: expect.any(String) });

    const changed = await call(server, 'PATCH', '/clients/pk-one', { token, body: { jwks_uri: 'https://keys.example/pk-one.json', dpop_bound_access_tokens: false, first_party: true } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ jwks: null, jwks_uri: 'https://keys.example/pk-one.json', dpop_bound_access_tokens: false, first_party: true });
    const both = await call(server, 'PATCH', '/clients/eoc-one', { token, body: { response_types: ['code', 'id_token'], token_endpoint_auth_method: 'client_secret_post' } });
    expect(both.body).toMatchObject({ response_types: ['code', 'id_token'], grant_types: ['authorization_code', 'implicit'], token_endpoint_auth_method: 'client_secret_post' });
    const noSecret = await call(server, 'PATCH', '/clients/pk-one', { token, body: { token_endpoint_auth_method: 'client_secret_basic' } });
    expect(noSecret.status).toBe(400);
    expect(noSecret.body.errors).toEqual([{ field: 'token_endpoint_auth_method', message: 'client "pk-one" has no secret: rotate its secret first, then choose client_secret_basic' }]);
    expect((await call(server, 'GET', '/clients/pk-one', { token })).body).toEqual(changed.body);
    for (const id of ['pk-one', 'eoc-one']) expect((await call(server, 'DELETE', `/clients/${id}`, { token })).status).toBe(204);
  });

  it('registers, changes and removes backchannel_logout_uri and backchannel_logout_session_required, refusing bad ones by field', async () => {
    const created = await call(server, 'POST', '/clients', {
      token,
      body: { client_id: 'bc-one', redirect_uris: ['https://bc.example/cb'], backchannel_logout_uri: 'https://bc.example/logout?app=1', backchannel_logout_session_required: true },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ backchannel_logout_uri: 'https://bc.example/logout?app=1', backchannel_logout_session_required: true });
    const discovered = await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json() as Record<string, unknown>;
    expect([discovered.backchannel_logout_supported, discovered.backchannel_logout_session_supported]).toEqual([true, true]);
    const changed = await call(server, 'PATCH', '/clients/bc-one', { token, body: { backchannel_logout_session_required: false } });
    expect(changed.body).toMatchObject({ backchannel_logout_uri: 'https://bc.example/logout?app=1', backchannel_logout_session_required: false });
    for (const [method, path, body, field, message] of [
      ['POST', '/clients', { client_id: 'bc-two', redirect_uris: ['https://bc.example/cb'], backchannel_logout_uri: 'https://bc.example/logout#f' }, 'backchannel_logout_uri', 'backchannel_logout_uri "https://bc.example/logout#f" must not contain a fragment'],
      ['POST', '/clients', { client_id: 'bc-two', redirect_uris: ['https://bc.example/cb'], backchannel_logout_uri: 'logout' }, 'backchannel_logout_uri', 'backchannel_logout_uri "logout" is not an absolute URL'],
      ['POST', '/clients', { client_id: 'bc-two', redirect_uris: ['https://bc.example/cb'], backchannel_logout_session_required: true }, 'backchannel_logout_session_required', 'backchannel_logout_session_required needs a backchannel_logout_uri'],
      ['POST', '/clients', { client_id: 'bc-spa', public: true, redirect_uris: ['https://bc.example/cb'], backchannel_logout_uri: 'http://bc.example/logout' }, 'backchannel_logout_uri', 'backchannel_logout_uri "http://bc.example/logout" must use https; http is allowed only for a confidential client, or for localhost and 127.0.0.1'],
      ['PATCH', '/clients/bc-one', { backchannel_logout_uri: 'ftp://bc.example/logout' }, 'backchannel_logout_uri', 'backchannel_logout_uri "ftp://bc.example/logout" must use https; http is allowed only for a confidential client, or for localhost and 127.0.0.1'],
    ] as const) {
      const answer = await call(server, method, path, { token, body });
      expect(answer.status).toBe(400);
      expect(answer.body.errors).toEqual([{ field, message }]);
    }
    // Back-Channel Logout 1.0 §2.2: http for a confidential client (one on the compose network, say); for a public one only on loopback.
    const plain = await call(server, 'PATCH', '/clients/bc-one', { token, body: { backchannel_logout_uri: 'http://app-one:3001/backchannel-logout' } });
    expect([plain.status, plain.body.backchannel_logout_uri]).toEqual([200, 'http://app-one:3001/backchannel-logout']);
    const spa = await call(server, 'POST', '/clients', { token, body: { client_id: 'bc-spa', public: true, redirect_uris: ['https://bc.example/cb'], backchannel_logout_uri: 'http://127.0.0.1:3002/bc' } });
    expect([spa.status, spa.body.backchannel_logout_uri]).toEqual([201, 'http://127.0.0.1:3002/bc']);
    expect((await call(server, 'DELETE', '/clients/bc-spa', { token })).status).toBe(204);
    const removed = await call(server, 'PATCH', '/clients/bc-one', { token, body: { backchannel_logout_uri: null } });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ backchannel_logout_uri: null, backchannel_logout_session_required: false });
  });

  it('registers, reads, changes and removes logo_uri (PATCH null), refusing a bad one by field', async () => {
    const created = await call(server, 'POST', '/clients', { token, body: { client_id: 'logo-one', redirect_uris: ['https://logo.example/cb'], logo_uri: 'https://cdn.logo.example/logo.png' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ client_id: 'logo-one', logo_uri: 'https://cdn.logo.example/logo.png' });
    expect((await call(server, 'GET', '/clients/logo-one', { token })).body).toMatchObject({ logo_uri: 'https://cdn.logo.example/logo.png' });
    expect((await server.app.services.clients.find('logo-one'))!.logoUri).toBe('https://cdn.logo.example/logo.png');
    const changed = await call(server, 'PATCH', '/clients/logo-one', { token, body: { logo_uri: 'https://cdn.logo.example/v2.svg' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ logo_uri: 'https://cdn.logo.example/v2.svg', redirect_uris: ['https://logo.example/cb'] });
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/clients', { client_id: 'logo-two', redirect_uris: ['https://logo.example/cb'], logo_uri: 'http://cdn.logo.example/logo.png' }, 'logo_uri "http://cdn.logo.example/logo.png" must use https; http is allowed only for localhost and 127.0.0.1'],
      ['POST', '/clients', { client_id: 'logo-two', redirect_uris: ['https://logo.example/cb'], logo_uri: `https://cdn.logo.example/${'x'.repeat(2048)}` }, 'logo_uri must be at most 2048 characters'],
      ['PATCH', '/clients/logo-one', { logo_uri: 'https://user:pw@cdn.logo.example/logo.png' }, 'logo_uri "https://user:pw@cdn.logo.example/logo.png" must not contain credentials'],
      ['PATCH', '/clients/logo-one', { logo_uri: 'https://cdn.logo.example/logo.png#x' }, 'logo_uri "https://cdn.logo.example/logo.png#x" must not contain a fragment'],
    ];
    for (const [method, path, body, message] of cases) {
      const answer = await call(server, method, path, { token, body });
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(answer.body.errors).toEqual([{ field: 'logo_uri', message }]);
    }
    const wrongType = await call(server, 'PATCH', '/clients/logo-one', { token, body: { logo_uri: 42 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors).toEqual([{ field: 'logo_uri', message: expect.any(String) }]);
    expect(await server.app.services.clients.find('logo-two')).toBeUndefined();
    const removed = await call(server, 'PATCH', '/clients/logo-one', { token, body: { logo_uri: null } });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ logo_uri: null, redirect_uris: ['https://logo.example/cb'] });
    expect(await server.app.services.clients.find('logo-one')).not.toHaveProperty('logoUri');
    expect((await call(server, 'DELETE', '/clients/logo-one', { token })).status).toBe(204);
  });

  it('registers, reads, changes and removes a token-exchange policy with its grant, refusing a bad one by field', async () => {
    const grant = 'urn:ietf:params:oauth:grant-type:token-exchange';
    const policy = { audiences: ['https://api.example'], scopes: ['movies:read'] };
    const created = await call(server, 'POST', '/clients', { token, body: { client_id: 'rs-one', grant_types: [grant], token_exchange: policy } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ client_id: 'rs-one', grant_types: [grant], redirect_uris: [], token_exchange: policy });
    expect((await call(server, 'GET', '/clients/rs-one', { token })).body).toMatchObject({ token_exchange: policy });
    const wider = { audiences: ['https://api.example', 'https://other.example'], scopes: ['movies:read', 'cars:read'] };
    const changed = await call(server, 'PATCH', '/clients/rs-one', { token, body: { token_exchange: wider } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ token_exchange: wider });
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/clients', { client_id: 'rs-two', grant_types: [grant] }, 'the token-exchange grant needs a token_exchange policy (audiences and scopes)'],
      ['POST', '/clients', { client_id: 'rs-two', grant_types: ['client_credentials'], token_exchange: policy }, 'token_exchange applies only to a client with the token-exchange grant'],
      ['PATCH', '/clients/rs-one', { token_exchange: { audiences: [], scopes: ['movies:read'] } }, 'token_exchange needs at least one audience'],
      ['PATCH', '/clients/rs-one', { token_exchange: null }, 'the token-exchange grant needs a token_exchange policy (audiences and scopes)'],
    ];
    for (const [method, path, body, message] of cases) {
      const answer = await call(server, method, path, { token, body });
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(answer.body.errors).toEqual([{ field: 'token_exchange', message }]);
    }
    const unknownMember = await call(server, 'PATCH', '/clients/rs-one', { token, body: { token_exchange: { ...policy, subjects: [] } } });
    expect(unknownMember.status).toBe(400);
    // Removing the grant (and the policy with null) leaves a client_credentials client.
    const removed = await call(server, 'PATCH', '/clients/rs-one', { token, body: { grant_types: ['client_credentials'], token_exchange: null } });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ grant_types: ['client_credentials'], token_exchange: null });
    expect(await server.app.services.clients.find('rs-one')).not.toHaveProperty('tokenExchange');
    expect((await call(server, 'DELETE', '/clients/rs-one', { token })).status).toBe(204);
  });
});
