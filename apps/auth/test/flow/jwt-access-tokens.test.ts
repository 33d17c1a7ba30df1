import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { disableAccount, enableAccount } from '../../src/accounts/disable-account.ts';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import {
  APP_TWO,
  authorizeUrl,
  basic,
  codeFrom,
  CookieJar,
  exchange,
  introspect,
  logout,
  refresh,
  request,
  revokeAs,
  signIn,
  startServer,
  type TestAuthServer,
  type TestUser,
} from '../support/flow.ts';

describe.each(TEST_ENGINES)('JWT access tokens: scope, userinfo, introspection and revocation on %s', (engine) => {
  let server: TestAuthServer;
  let user: TestUser;
  let skewMs = 0;
  const jar = new CookieJar();

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => Date.now() + skewMs });
    user = await server.createUser({ groups: ['readers', 'writers'] });
    expect((await signIn(server, jar, user, authorizeUrl(server))).status).toBe(302);
  });
  afterAll(() => server.close());

  async function tokensFor(scope: string, client: { clientId: string; clientSecret: string; redirectUri: string } = server.testClient, browser = jar) {
    const nonce = scope.split(' ').includes('openid') ? undefined : null;
    const res = await request(browser, authorizeUrl(server, { scope, clientId: client.clientId, redirectUri: client.redirectUri, nonce }));
    expect(res.status).toBe(302);
    const tokens = await exchange(server, codeFrom(res.location), {}, client);
    expect(tokens.status).toBe(200);
    return tokens.body as { access_token: string; id_token?: string; refresh_token?: string; scope: string } & Record<string, unknown>;
  }

  const userinfo = async (token: string) => {
    const res = await fetch(`${server.issuer}/oauth2/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };

  it('the token response scope lists every granted scope, OpenID and API, in the order requested', async () => {
    const mixed = await tokensFor('movies:read openid email profile');
    expect(mixed.scope).toBe('movies:read openid email profile');
    const usual = await tokensFor('openid profile email movies:read');
    expect(usual.scope).toBe('openid profile email movies:read');
    // Scopes nobody may grant are dropped, the rest keep their order.
    const unknown = await tokensFor('openid unknown:scope movies:read');
    expect(unknown.scope).toBe('openid movies:read');
    // A refresh keeps the full list, or the narrower one asked for.
    const again = await refresh(server, String(usual.refresh_token));
    expect(again.status).toBe(200);
    expect(again.body.scope).toBe('openid profile email movies:read');
    const narrower = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(server.testClient.clientId, server.testClient.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(again.body.refresh_token), scope: 'movies:read openid' }),
    });
    expect(narrower.status).toBe(200);
    expect(((await narrower.json()) as Record<string, unknown>).scope).toBe('movies:read openid');
  });

  it('an OpenID-only request gets an RFC 9068 JWT for userinfo, which userinfo accepts and releases claims by scope', async () => {
    const tokens = await tokensFor('openid profile email');
    expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
    const jwks = createRemoteJWKSet(new URL(`${server.issuer}/oauth2/v1/keys`));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: server.issuer, audience: `${server.issuer}/oauth2/v1/userinfo`, typ: 'at+jwt' });
    const account = (await server.app.services.accounts.findByUsername(user.username))!;
    expect(payload).toMatchObject({ sub: account.id, client_id: 'test-app', scope: 'openid profile email', groups: ['readers', 'writers'] });
    expect(payload.grant_id).toMatch(/^[\w-]{20,}$/);

    const res = await userinfo(tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      sub: account.id,
      name: `Test ${user.username}`,
      preferred_username: user.username,
      groups: ['readers', 'writers'],
      email: `${user.username}@example.com`,
      email_verified: true,
    });
    const emailOnly = await userinfo((await tokensFor('openid email')).access_token);
    expect(emailOnly.body).toEqual({ sub: account.id, email: `${user.username}@example.com`, email_verified: true });
  });

  it('userinfo accepts an API token that carries openid, releasing the claims of its OpenID scopes', async () => {
    const api = await tokensFor('openid email movies:read');
    const account = (await server.app.services.accounts.findByUsername(user.username))!;
    expect(decodeJwt(api.access_token)).toMatchObject({ aud: server.audience, scope: 'openid email movies:read' });
    const res = await userinfo(api.access_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sub: account.id, email: `${user.username}@example.com`, email_verified: true });

    // A refresh narrowed to API scopes gives a token without openid: not for userinfo.
    const narrowed = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(server.testClient.clientId, server.testClient.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(api.refresh_token), scope: 'movies:read' }),
    });
    const apiOnly = String(((await narrowed.json()) as Record<string, unknown>).access_token);
    expect(decodeJwt(apiOnly)).toMatchObject({ aud: server.audience, scope: 'movies:read' });
    const refused = await userinfo(apiOnly);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'insufficient_scope', error_description: 'the openid scope is required' });
    expect(refused.headers.get('www-authenticate')).toBe(`Bearer realm="${server.issuer}", error="insufficient_scope", error_description="the openid scope is required"`);
  });

  it('userinfo refuses revoked tokens and forged tokens with a Bearer invalid_token challenge', async () => {
    const forged = await server.sign({ sub: 'x', client_id: 'test-app', jti: 'forged', iss: 'https://elsewhere.example', aud: `${server.issuer}/oauth2/v1/userinfo`, exp: 9_999_999_999, iat: 1, scope: 'openid' });
    const refused = await userinfo(forged);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'invalid_token', error_description: 'invalid token provided' });
    expect(refused.headers.get('www-authenticate')).toBe(`Bearer realm="${server.issuer}", error="invalid_token", error_description="invalid token provided"`);

    const revoked = await tokensFor('openid profile');
    await server.revoke(revoked.access_token);
    const after = await userinfo(revoked.access_token);
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('invalid_token');
  });

  it('introspection of a live JWT answers every RFC 7662 member the issue names', async () => {
    const tokens = await tokensFor('openid profile movies:read');
    const claims = decodeJwt(tokens.access_token);
    const account = (await server.app.services.accounts.findByUsername(user.username))!;
    const res = await introspect(server, tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      active: true,
      scope: 'openid profile movies:read',
      client_id: 'test-app',
      sub: account.id,
      aud: server.audience,
      iss: server.issuer,
      exp: claims.exp,
      iat: claims.iat,
      jti: claims.jti,
      token_type: 'Bearer',
      username: user.username,
      groups: ['readers', 'writers'],
    });
  });

  it('an expired JWT introspects as inactive', async () => {
    const tokens = await tokensFor('openid movies:read');
    expect((await introspect(server, tokens.access_token)).body.active).toBe(true);
    skewMs = 3_601_000;
    try {
      expect((await introspect(server, tokens.access_token)).body).toEqual({ active: false });
    } finally {
      skewMs = 0;
    }
  });

  it('revoking a JWT (RFC 7009) answers 200 with an empty body and records its jti until it expires', async () => {
    const tokens = await tokensFor('openid movies:read');
    const { jti, exp } = decodeJwt(tokens.access_token);
    const res = await revokeAs(server, tokens.access_token, server.testClient);
    expect(res).toEqual({ status: 200, text: '' });
    expect((await introspect(server, tokens.access_token)).body).toEqual({ active: false });
    const row = await server.database.db.selectFrom('token_revocations').selectAll().where('jti', '=', jti!).executeTakeFirstOrThrow();
    expect(row.type).toBe('token');
    expect(Number(row.expires_at)).toBe(exp! * 1000);
    // Revoking again, or revoking garbage, is still 200 (RFC 7009 2.2).
    expect(await revokeAs(server, tokens.access_token, server.testClient)).toEqual({ status: 200, text: '' });
    expect(await revokeAs(server, 'eyJhbGciOiJIUzI1NiJ9.e30.c2ln', server.testClient)).toEqual({ status: 200, text: '' });
  });

  it('only the owning client revokes a JWT: another confidential client gets invalid_request, a public one changes nothing', async () => {
    const tokens = await tokensFor('openid movies:read');
    const foreign = await revokeAs(server, tokens.access_token, APP_TWO);
    expect(foreign.status).toBe(400);
    expect(JSON.parse(foreign.text)).toEqual({ error: 'invalid_request', error_description: 'client is not authorized to revoke the presented token' });
    await server.app.services.clients.create({ clientId: 'spa-revoker', public: true, redirectUris: ['http://127.0.0.1:7/spa'] });
    expect(await revokeAs(server, tokens.access_token, { clientId: 'spa-revoker' })).toEqual({ status: 200, text: '' });
    expect((await introspect(server, tokens.access_token)).body.active).toBe(true);
  });

  it('a public client introspects its own JWTs only', async () => {
    await server.app.services.clients.create({ clientId: 'spa-introspect', public: true, redirectUris: ['http://127.0.0.1:7/spa-cb'] });
    const other = await tokensFor('openid movies:read');
    const ask = async (token: string) => {
      const res = await fetch(`${server.issuer}/oauth2/v1/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: 'spa-introspect' }),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    expect(await ask(other.access_token)).toEqual({ active: false });
  });

  it('a reused code revokes the grant: the JWT issued from it turns inactive', async () => {
    const res = await request(jar, authorizeUrl(server, { scope: 'openid movies:read' }));
    const code = codeFrom(res.location);
    const first = await exchange(server, code);
    const token = String(first.body.access_token);
    expect((await introspect(server, token)).body.active).toBe(true);
    expect((await exchange(server, code)).status).toBe(400);
    expect((await introspect(server, token)).body).toEqual({ active: false });
  });

  it('a refresh-token replay revokes the grant: every JWT of it turns inactive', async () => {
    const tokens = await tokensFor('openid movies:read');
    const rotated = await refresh(server, String(tokens.refresh_token));
    expect(rotated.status).toBe(200);
    const replay = await refresh(server, String(tokens.refresh_token));
    expect(replay.body.error).toBe('invalid_grant');
    expect((await introspect(server, tokens.access_token)).body).toEqual({ active: false });
    expect((await introspect(server, String(rotated.body.access_token))).body).toEqual({ active: false });
  });

  it('logout ends the session and with it the JWTs bound to it', async () => {
    const browser = new CookieJar();
    const other = await server.createUser();
    expect((await signIn(server, browser, other, authorizeUrl(server))).status).toBe(302);
    const tokens = await tokensFor('openid profile movies:read', server.testClient, browser);
    expect((await introspect(server, tokens.access_token)).body.active).toBe(true);
    await logout(server, browser, String(tokens.id_token));
    expect((await introspect(server, tokens.access_token)).body).toEqual({ active: false });
  });

  it('a JWT of a removed user, or of a removed client, is inactive', async () => {
    const browser = new CookieJar();
    const leaving = await server.createUser();
    expect((await signIn(server, browser, leaving, authorizeUrl(server))).status).toBe(302);
    const tokens = await tokensFor('openid movies:read', server.testClient, browser);
    expect((await introspect(server, tokens.access_token)).body.active).toBe(true);
    await server.app.services.accounts.remove(leaving.username);
    expect((await introspect(server, tokens.access_token)).body).toEqual({ active: false });
    // Their SSO session stands for no one now: authorize asks for a login; prompt=none says so.
    const page = await request(browser, authorizeUrl(server));
    expect(page.status).toBe(200);
    expect(page.text).toContain('action="/login"');
    const quiet = await request(browser, authorizeUrl(server, { prompt: 'none' }));
    expect(quiet.status).toBe(302);
    expect(new URL(quiet.location!).searchParams.get('error')).toBe('login_required');

    const clientId = 'short-lived-app';
    const client = { clientId, clientSecret: 'short-lived-app-secret-0123456789', redirectUri: 'http://127.0.0.1:7/short' };
    await server.app.services.clients.create({ clientId, redirectUris: [client.redirectUri], clientSecret: client.clientSecret, firstParty: true });
    const theirs = await tokensFor('openid movies:read', client);
    expect((await introspect(server, theirs.access_token)).body.active).toBe(true);
    await server.app.services.clients.remove(clientId);
    expect((await introspect(server, theirs.access_token)).body).toEqual({ active: false });
  });

  it('disabling a user ends their JWTs and refresh tokens and refuses sign-in; enabling allows new sign-ins only', async () => {
    const browser = new CookieJar();
    const pausing = await server.createUser();
    expect((await signIn(server, browser, pausing, authorizeUrl(server))).status).toBe(302);
    const tokens = await tokensFor('openid profile movies:read', server.testClient, browser);
    const userinfoToken = (await tokensFor('openid profile', server.testClient, browser)).access_token;
    expect((await introspect(server, tokens.access_token)).body.active).toBe(true);
    const deps = { ...server.app.services, clock: Date.now, accessTokenTtl: 3600 };
    expect((await disableAccount(deps, pausing.username))!.disabledAt).toEqual(expect.any(Number));

    expect((await introspect(server, tokens.access_token)).body).toEqual({ active: false });
    expect((await userinfo(userinfoToken)).status).toBe(401);
    expect((await refresh(server, String(tokens.refresh_token))).body.error).toBe('invalid_grant');
    // The SSO session no longer stands for anyone: the login page again, and the password step refuses.
    const page = await request(browser, authorizeUrl(server));
    expect(page.status).toBe(200);
    const uid = /name="uid" value="([^"]+)"/.exec(page.text)![1]!;
    const refused = await fetch(`${server.issuer}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', cookie: browser.header() },
      body: JSON.stringify({ uid, username: pausing.username, password: pausing.password }),
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'account_disabled', error_description: 'This account is disabled. Contact your administrator.' });

    await enableAccount(deps, pausing.username);
    // iat has one-second precision: sign in again a little later (faked Date, no sleep).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 2_000 });
    try {
      const again = new CookieJar();
      expect((await signIn(server, again, pausing, authorizeUrl(server), Date.now() + 30_000)).status).toBe(302);
      const fresh = await tokensFor('openid movies:read', server.testClient, again);
      expect((await introspect(server, fresh.access_token)).body.active).toBe(true);
      expect((await introspect(server, tokens.access_token)).body).toEqual({ active: false });
    } finally {
      vi.useRealTimers();
    }
  });

  it('the JWT_token alias is off by default and, once set for a client, repeats the ID token', async () => {
    const plain = await tokensFor('openid profile');
    expect(Object.keys(plain).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    const client = { clientId: 'seed-variant-app', clientSecret: 'seed-variant-app-secret-0123456789', redirectUri: 'http://127.0.0.1:7/seed' };
    await server.app.services.clients.create({ clientId: client.clientId, redirectUris: [client.redirectUri], clientSecret: client.clientSecret, idTokenField: 'JWT_token', firstParty: true });
    const aliased = await tokensFor('openid profile', client);
    expect(Object.keys(aliased).sort()).toEqual(['JWT_token', 'access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    expect(aliased.JWT_token).toBe(aliased.id_token);
    // An exchange without openid has no ID token, so no alias either.
    const noId = await tokensFor('movies:read', client);
    expect(Object.keys(noId)).not.toContain('JWT_token');
    expect(Object.keys(noId)).not.toContain('id_token');
  });
});
