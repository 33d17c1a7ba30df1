import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { authorizeUrl, basic, codeFrom, CookieJar, exchange, introspect, pkcePair, refresh, signIn, startServer, type TestAuthServer, type TestUser } from '../support/flow.ts';

describe.each(TEST_ENGINES)('codes, refresh tokens and keys on %s', (engine) => {
  let server: TestAuthServer;
  let user: TestUser;
  const jar = new CookieJar();

  beforeAll(async () => {
    server = await startServer({ engine });
    user = await server.createUser();
    expect((await signIn(server, jar, user, authorizeUrl(server))).status).toBe(302);
  });
  afterAll(() => server.close());
  afterEach(() => vi.useRealTimers());

  async function freshCode(scope = 'openid profile email movies:read'): Promise<string> {
    const res = await (await import('../support/flow.ts')).request(jar, authorizeUrl(server, { scope }));
    expect(res.status).toBe(302);
    return codeFrom(res.location);
  }

  it('a reused authorization code is invalid_grant and revokes what was issued from it', async () => {
    const code = await freshCode();
    const first = await exchange(server, code);
    expect(first.status).toBe(200);
    const second = await exchange(server, code);
    expect(second.status).toBe(400);
    expect(second.body).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
    const afterReuse = await refresh(server, String(first.body.refresh_token));
    expect(afterReuse.status).toBe(400);
    expect(afterReuse.body.error).toBe('invalid_grant');
  });

  it('an authorization code expires after 60 seconds', async () => {
    const code = await freshCode();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    const res = await exchange(server, code);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('PKCE: a confidential client that sent a challenge must send the matching verifier', async () => {
    const { verifier, challenge } = pkcePair();
    const res = await (await import('../support/flow.ts')).request(jar, authorizeUrl(server, { challenge }));
    const code = codeFrom(res.location);
    const wrong = await exchange(server, code, { code_verifier: pkcePair().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    const res2 = await (await import('../support/flow.ts')).request(jar, authorizeUrl(server, { challenge }));
    const ok = await exchange(server, codeFrom(res2.location), { code_verifier: verifier });
    expect(ok.status).toBe(200);
  });

  it('refresh tokens rotate on use, and presenting a used one revokes the whole grant', async () => {
    const tokens = await exchange(server, await freshCode());
    const firstRefresh = String(tokens.body.refresh_token);
    const rotated = await refresh(server, firstRefresh);
    expect(rotated.status).toBe(200);
    expect(rotated.body.token_type).toBe('Bearer');
    expect(rotated.body.expires_in).toBe(3600);
    expect(typeof rotated.body.access_token).toBe('string');
    const secondRefresh = String(rotated.body.refresh_token);
    expect(secondRefresh).not.toBe(firstRefresh);

    const reuse = await refresh(server, firstRefresh);
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    const revoked = await refresh(server, secondRefresh);
    expect(revoked.status).toBe(400);
    expect(revoked.body.error).toBe('invalid_grant');
  });

  it('a refresh refused for its resource (invalid_target) does not rotate: the refresh token still works', async () => {
    const tokens = await exchange(server, await freshCode());
    expect(tokens.status).toBe(200);
    const refreshToken = String(tokens.body.refresh_token);
    const cases: [string, string][][] = [
      [['resource', 'https://evil.example']],
      [['resource', 'urn:x']],
      [['resource', 'https://evil.example'], ['resource', 'valueOf']],
      [['scope', 'openid'], ['resource', 'https://evil.example']],
    ];
    for (const extra of cases) {
      const res = await fetch(`${server.issuer}/oauth2/v1/token`, {
        method: 'POST',
        headers: { authorization: basic(server.testClient.clientId, server.testClient.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams([['grant_type', 'refresh_token'], ['refresh_token', refreshToken], ...extra]),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_target');
    }
    const after = await refresh(server, refreshToken);
    expect(after.status).toBe(200);
    expect(after.body.refresh_token).not.toBe(refreshToken);
  });

  it('rotating keys: the new key signs, a token signed by the old key still verifies against the JWKS', async () => {
    const before = await exchange(server, await freshCode());
    const oldKid = decodeProtectedHeader(String(before.body.access_token)).kid;
    await server.rotateKeys();
    const after = await exchange(server, await freshCode());
    const newKid = decodeProtectedHeader(String(after.body.access_token)).kid;
    expect(newKid).not.toBe(oldKid);
    expect(decodeProtectedHeader(String(after.body.id_token)).kid).toBe(newKid);

    const jwks = (await (await fetch(`${server.issuer}/oauth2/v1/keys`)).json()) as JSONWebKeySet;
    expect(jwks.keys.map((k) => k.kid)).toEqual([newKid, oldKid]);
    for (const key of jwks.keys) expect(Object.keys(key)).not.toContain('d');
    const keySet = createLocalJWKSet(jwks);
    await expect(jwtVerify(String(before.body.access_token), keySet, { issuer: server.issuer, audience: server.audience })).resolves.toBeTruthy();
    await expect(jwtVerify(String(after.body.access_token), keySet, { issuer: server.issuer, audience: server.audience })).resolves.toBeTruthy();
  });

  it('userinfo answers the profile for a token issued without API scopes', async () => {
    const tokens = await exchange(server, await freshCode('openid profile email'));
    expect(tokens.body.scope).toBe('openid profile email');
    const res = await fetch(`${server.issuer}/oauth2/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.body.access_token}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ email: `${user.username}@example.com`, name: `Test ${user.username}`, groups: ['testers'], preferred_username: user.username });
  });

  it('introspection needs client authentication and reports active and revoked tokens', async () => {
    const tokens = await exchange(server, await freshCode('openid profile email'));
    const token = String(tokens.body.access_token);
    const anonymous = await fetch(`${server.issuer}/oauth2/v1/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    });
    expect(anonymous.status).toBe(400);
    expect(await anonymous.json()).toEqual({ error: 'invalid_request', error_description: 'no client authentication mechanism provided' });
    const wrongSecret = await fetch(`${server.issuer}/oauth2/v1/introspect`, {
      method: 'POST',
      headers: { authorization: basic('api', 'not-the-secret-at-all'), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    });
    expect(wrongSecret.status).toBe(401);
    expect(((await wrongSecret.json()) as Record<string, unknown>).error).toBe('invalid_client');
    // A userinfo token: its own client may introspect it; the API's client may not (not its audience).
    const asOwner = () =>
      fetch(`${server.issuer}/oauth2/v1/introspect`, {
        method: 'POST',
        headers: { authorization: basic(server.testClient.clientId, server.testClient.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
    const active = await asOwner();
    expect(active.status).toBe(200);
    expect(active.body).toMatchObject({ active: true, client_id: 'test-app', scope: 'openid profile email', token_type: 'Bearer' });
    expect(await introspect(server, token)).toEqual({ status: 200, body: { active: false } });
    await server.revoke(token);
    expect((await asOwner()).body).toEqual({ active: false });
  });

  it('revocation of a refresh token needs the owning client', async () => {
    const tokens = await exchange(server, await freshCode());
    const res = await fetch(`${server.issuer}/oauth2/v1/revoke`, {
      method: 'POST',
      headers: { authorization: basic(server.testClient.clientId, 'wrong-secret-wrong-secret'), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: String(tokens.body.refresh_token) }),
    });
    expect(res.status).toBe(401);
    await server.revoke(String(tokens.body.refresh_token));
    expect((await refresh(server, String(tokens.body.refresh_token))).body.error).toBe('invalid_grant');
  });

  it('discovery names the /oauth2/v1 endpoints', async () => {
    const res = await fetch(`${server.issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: server.issuer,
      authorization_endpoint: `${server.issuer}/oauth2/v1/authorize`,
      token_endpoint: `${server.issuer}/oauth2/v1/token`,
      jwks_uri: `${server.issuer}/oauth2/v1/keys`,
      userinfo_endpoint: `${server.issuer}/oauth2/v1/userinfo`,
      introspection_endpoint: `${server.issuer}/oauth2/v1/introspect`,
      revocation_endpoint: `${server.issuer}/oauth2/v1/revoke`,
      end_session_endpoint: `${server.issuer}/oauth2/v1/logout`,
      code_challenge_methods_supported: ['S256'],
    });
    expect(doc.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none']);
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'movies:read', 'users:write']));
  });
});
