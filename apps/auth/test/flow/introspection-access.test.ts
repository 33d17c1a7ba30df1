/**
 * Who may introspect which token (oidc/token-policies.ts): the client the token was issued to,
 * and the API's own client (AUTH_API_CLIENT_ID, `api` by default) for the tokens whose audience
 * is the API; any other client, confidential or public, gets `{"active": false}` and learns
 * nothing (no sub, scope or groups). JWT and opaque access tokens and refresh tokens alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { APP_TWO, authorizeUrl, basic, codeFrom, CookieJar, exchange, request, signIn, startServer, type TestAuthServer } from '../support/flow.ts';

type Caller = { clientId: string; clientSecret?: string };
const PUBLIC_APP = { clientId: 'public-app' };
const INACTIVE = { status: 200, body: { active: false } };

async function introspectAs(server: TestAuthServer, token: string, caller: Caller) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const params = new URLSearchParams({ token });
  if (caller.clientSecret) headers.authorization = basic(caller.clientId, caller.clientSecret);
  else params.set('client_id', caller.clientId);
  const res = await fetch(`${server.issuer}/oauth2/v1/introspect`, { method: 'POST', headers, body: params });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function setUp(server: TestAuthServer): Promise<CookieJar> {
  await server.app.services.clients.create({ clientId: PUBLIC_APP.clientId, name: 'Public', redirectUris: ['http://127.0.0.1:8/cb'], public: true, grantTypes: ['authorization_code'] });
  const jar = new CookieJar();
  const done = await signIn(server, jar, await server.createUser({ groups: ['readers'] }), authorizeUrl(server));
  expect(done.status).toBe(302);
  return jar;
}

async function tokensFor(server: TestAuthServer, jar: CookieJar, scope: string) {
  const res = await request(jar, authorizeUrl(server, { scope }));
  const tokens = await exchange(server, codeFrom(res.location));
  expect(tokens.status).toBe(200);
  return tokens.body as { access_token: string; refresh_token: string };
}

describe.each(TEST_ENGINES)('introspection is limited to the token’s client and its resource server, on %s', (engine) => {
  let server: TestAuthServer;
  let jar: CookieJar;
  beforeAll(async () => {
    server = await startServer({ engine });
    jar = await setUp(server);
  });
  afterAll(() => server.close());

  it("an API JWT: its own client and the API's client see it; another client, confidential or public, sees nothing", async () => {
    const { access_token: token } = await tokensFor(server, jar, 'openid profile movies:read');
    const own = await introspectAs(server, token, server.testClient);
    expect(own.body).toMatchObject({ active: true, client_id: 'test-app', aud: server.audience, scope: 'openid profile movies:read', groups: ['readers'] });
    expect(await introspectAs(server, token, server.introspectionClient)).toEqual(own);
    expect(await introspectAs(server, token, APP_TWO)).toEqual(INACTIVE);
    expect(await introspectAs(server, token, PUBLIC_APP)).toEqual(INACTIVE);
  });

  it("a userinfo JWT and a refresh token: only their own client (the API's client is not their audience)", async () => {
    const { access_token: userinfoToken } = await tokensFor(server, jar, 'openid profile');
    const { refresh_token: refreshToken } = await tokensFor(server, jar, 'openid movies:read');
    for (const token of [userinfoToken, refreshToken]) {
      expect((await introspectAs(server, token, server.testClient)).body.active).toBe(true);
      expect(await introspectAs(server, token, server.introspectionClient)).toEqual(INACTIVE);
      expect(await introspectAs(server, token, APP_TWO)).toEqual(INACTIVE);
    }
  });

  it("a machine token of another client: the API's client sees it (its audience), a third client does not", async () => {
    await server.app.services.clients.create({ clientId: 'machine', name: 'Machine', redirectUris: [], grantTypes: ['client_credentials'], clientSecret: 'machine-secret-0123456789abcdef' });
    const res = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic('machine', 'machine-secret-0123456789abcdef'), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'movies:read' }),
    });
    const token = String(((await res.json()) as Record<string, unknown>).access_token);
    expect((await introspectAs(server, token, server.introspectionClient)).body).toMatchObject({ active: true, client_id: 'machine', sub: 'machine' });
    expect(await introspectAs(server, token, APP_TWO)).toEqual(INACTIVE);
  });
});

describe('introspection of opaque tokens, with the API client named by AUTH_API_CLIENT_ID', () => {
  let server: TestAuthServer;
  let jar: CookieJar;
  const resourceServer = { clientId: 'movies-api', clientSecret: 'movies-api-secret-0123456789abcdef' };
  beforeAll(async () => {
    server = await startServer({ tokenFormat: 'opaque', env: { AUTH_API_CLIENT_ID: resourceServer.clientId } });
    await server.app.services.clients.create({ ...resourceServer, name: 'Movies API', redirectUris: [], grantTypes: ['client_credentials'] });
    jar = await setUp(server);
  });
  afterAll(() => server.close());

  it('the configured client sees the API token; `api`, now an ordinary client, does not', async () => {
    const { access_token: token } = await tokensFor(server, jar, 'openid movies:read');
    expect(token.split('.')).toHaveLength(1);
    expect((await introspectAs(server, token, server.testClient)).body).toMatchObject({ active: true, client_id: 'test-app', aud: server.audience });
    expect((await introspectAs(server, token, resourceServer)).body).toMatchObject({ active: true, client_id: 'test-app', aud: server.audience });
    expect(await introspectAs(server, token, server.introspectionClient)).toEqual(INACTIVE);
    expect(await introspectAs(server, token, APP_TWO)).toEqual(INACTIVE);
    expect(await introspectAs(server, token, PUBLIC_APP)).toEqual(INACTIVE);
  });
});
