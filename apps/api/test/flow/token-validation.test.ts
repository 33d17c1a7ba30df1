/**
 * Token validation against real tokens from apps/auth (`@gatehouse/auth/testing`): a real
 * authorization server on loopback, tokens from the real code + PKCE flow. The API's clock is
 * injected, so expiry is tested by moving it, never by sleeping.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64url, decodeJwt, decodeProtectedHeader } from 'jose';
import { startTestAuthServer, type TestAuthServer } from '@gatehouse/auth/testing';
import { startApi, type ApiHarness } from '../support/api-harness.ts';

const REALM = 'Bearer realm="gatehouse-api"';
const invalid = (description: string) => `${REALM}, error="invalid_token", error_description="${description}"`;
const JSON_HEADERS = { 'content-type': 'application/json' };

async function expectRefused(r: Response, description: string): Promise<void> {
  expect(r.status).toBe(401);
  expect(r.headers.get('www-authenticate')).toBe(invalid(description));
  expect(await r.json()).toMatchObject({ status: 401, code: 'invalid_token', detail: description });
}

describe('JWT access tokens, validated locally against the JWKS', () => {
  let as: TestAuthServer;
  let api: ApiHarness;
  let token: string;

  beforeAll(async () => {
    as = await startTestAuthServer();
    api = await startApi({ issuer: as.issuer, env: { API_AUDIENCE: as.audience } });
    token = (await as.login({ scope: 'openid movies:read movies:write' })).access_token;
    const created = await api.request('/api/movies', { method: 'POST', token, headers: JSON_HEADERS, body: '{"id":1,"title":"Alien"}' });
    expect(created.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await as?.close();
  });

  it('accepts a valid token from the real flow', async () => {
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    const r = await api.request('/api/movies/1', { token });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual([{ id: 1, title: 'Alien' }]);
  });

  it('refuses an expired token, also once it was cached', async () => {
    const fresh = (await as.login({ scope: 'movies:read' })).access_token;
    const { exp } = decodeJwt(fresh);
    const saved = api.now;
    try {
      expect((await api.request('/api/movies/1', { token: fresh })).status).toBe(200);
      // 30 s of leeway: still good just before exp + 30 s, refused from then on.
      api.now = (exp! + 29) * 1000;
      expect((await api.request('/api/movies/1', { token: fresh })).status).toBe(200);
      api.now = (exp! + 30) * 1000;
      await expectRefused(await api.request('/api/movies/1', { token: fresh }), 'the access token expired');
    } finally {
      api.now = saved;
    }
  });

  it('refuses a token for another audience', async () => {
    const other = await startApi({ issuer: as.issuer, env: { API_AUDIENCE: 'http://localhost:4000/other-api' } });
    try {
      await expectRefused(await other.request('/api/movies/1', { token }), 'the access token was not issued for this API');
    } finally {
      await other.close();
    }
    const payload = { ...decodeJwt(token), aud: 'http://localhost:4000/other-api' };
    await expectRefused(await api.request('/api/movies/1', { token: await as.sign(payload) }), 'the access token was not issued for this API');
  });

  it('refuses a token from another issuer, even signed by the trusted key', async () => {
    const payload = { ...decodeJwt(token), iss: 'http://127.0.0.1:1' };
    await expectRefused(await api.request('/api/movies/1', { token: await as.sign(payload) }), 'the access token was not issued by the trusted issuer');
  });

  it('refuses a bad signature and a tampered payload', async () => {
    const [h, p, s] = token.split('.') as [string, string, string];
    const flipped = `${h}.${p}.${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`;
    await expectRefused(await api.request('/api/movies/1', { token: flipped }), 'the access token signature is invalid');
    const claims = { ...decodeJwt(token), scope: 'movies:read movies:write users:write' };
    const tampered = `${h}.${base64url.encode(JSON.stringify(claims))}.${s}`;
    await expectRefused(await api.request('/api/users/1', { token: tampered }), 'the access token signature is invalid');
  });

  it('refuses alg none', async () => {
    const [, p] = token.split('.') as [string, string];
    const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt' }));
    await expectRefused(
      await api.request('/api/movies/1', { token: `${header}.${p}.` }),
      'the access token is signed with an algorithm that is not allowed',
    );
    const withKid = base64url.encode(JSON.stringify({ ...decodeProtectedHeader(token), alg: 'none' }));
    await expectRefused(
      await api.request('/api/movies/1', { token: `${withKid}.${p}.` }),
      'the access token is signed with an algorithm that is not allowed',
    );
  });

  it('refuses a token whose typ is not at+jwt, such as an ID token', async () => {
    await expectRefused(
      await api.request('/api/movies/1', { token: await as.sign(decodeJwt(token), { typ: 'JWT' }) }),
      'the token is not an access token (typ must be at+jwt)',
    );
    const idToken = (await as.login({ scope: 'openid movies:read' })).id_token!;
    expect(decodeJwt(idToken).aud).not.toBe(as.audience);
    const r = await api.request('/api/movies/1', { token: idToken });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="gatehouse-api", error="invalid_token", error_description="/);
  });

  it('answers 403 naming the scope a real token lacks', async () => {
    const readOnly = (await as.login({ scope: 'openid movies:read' })).access_token;
    expect((await api.request('/api/movies/1', { token: readOnly })).status).toBe(200);
    const r = await api.request('/api/movies/1', { method: 'DELETE', token: readOnly });
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toBe(
      `${REALM}, error="insufficient_scope", error_description="this request needs the scope movies:write", scope="movies:write"`,
    );
    const cars = await api.request('/api/cars', { token: readOnly });
    expect(cars.status).toBe(403);
    expect(await cars.json()).toMatchObject({ code: 'insufficient_scope', scope: 'cars:read' });
  });

  it('refuses a key id the JWKS does not hold', async () => {
    await expectRefused(
      await api.request('/api/movies/1', { token: await as.sign(decodeJwt(token), { kid: 'no-such-key' }) }),
      'the access token is signed with an unknown key',
    );
  });

  it('accepts a token signed with a new key after rotation, with no restart', async () => {
    const before = decodeProtectedHeader(token).kid;
    // The previous test spent the unknown-kid refetch; refetches are rate-limited to one per 30 s.
    api.now += 30_000;
    await as.rotateKeys();
    const rotated = (await as.login({ scope: 'movies:read' })).access_token;
    expect(decodeProtectedHeader(rotated).kid).not.toBe(before);
    const r = await api.request('/api/movies/1', { token: rotated });
    expect(r.status).toBe(200);
    // The old key stays published, so tokens it signed keep working.
    expect((await api.request('/api/movies/1', { token })).status).toBe(200);
  });
});

describe('opaque access tokens, checked by introspection', () => {
  let as: TestAuthServer;
  let api: ApiHarness;

  beforeAll(async () => {
    as = await startTestAuthServer({ tokenFormat: 'opaque' });
    api = await startApi({
      issuer: as.issuer,
      env: {
        API_AUDIENCE: as.audience,
        API_TOKEN_MODE: 'introspection',
        API_INTROSPECTION_CLIENT_ID: as.introspectionClient.clientId,
        API_INTROSPECTION_CLIENT_SECRET: as.introspectionClient.clientSecret,
      },
    });
    const token = (await as.login({ scope: 'movies:read movies:write' })).access_token;
    const created = await api.request('/api/movies', { method: 'POST', token, headers: JSON_HEADERS, body: '{"id":1,"title":"Alien"}' });
    expect(created.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await as?.close();
  });

  it('accepts an active token', async () => {
    const token = (await as.login({ scope: 'movies:read' })).access_token;
    expect(token.split('.')).toHaveLength(1);
    const r = await api.request('/api/v2/movies/1', { token });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ id: 1, title: 'Alien' });
  });

  it('refuses a revoked token', async () => {
    const token = (await as.login({ scope: 'movies:read' })).access_token;
    await as.revoke(token);
    await expectRefused(await api.request('/api/movies/1', { token }), 'the access token is not active');
  });

  it('notices a revocation once the cached answer is older than its cap', async () => {
    const token = (await as.login({ scope: 'movies:read' })).access_token;
    expect((await api.request('/api/movies/1', { token })).status).toBe(200);
    await as.revoke(token);
    const saved = api.now;
    try {
      api.now = saved + 59_000;
      expect((await api.request('/api/movies/1', { token })).status).toBe(200);
      api.now = saved + 60_000;
      await expectRefused(await api.request('/api/movies/1', { token }), 'the access token is not active');
    } finally {
      api.now = saved;
    }
  });

  it('refuses an unknown token and an expired one', async () => {
    await expectRefused(await api.request('/api/movies/1', { token: 'made-up-opaque-token' }), 'the access token is not active');
    const { access_token: token, expires_in } = await as.login({ scope: 'movies:read' });
    const saved = api.now;
    try {
      api.now = saved + (expires_in + 120) * 1000;
      await expectRefused(await api.request('/api/movies/1', { token }), 'the access token expired');
    } finally {
      api.now = saved;
    }
  });

  it('answers 403 for a missing scope', async () => {
    const token = (await as.login({ scope: 'movies:read' })).access_token;
    const r = await api.request('/api/movies', { method: 'POST', token, headers: JSON_HEADERS, body: '{"id":2,"title":"x"}' });
    expect(r.status).toBe(403);
    expect(await r.json()).toMatchObject({ code: 'insufficient_scope', scope: 'movies:write' });
  });

  it('answers 503 when the API cannot authenticate to the introspection endpoint', async () => {
    const wrong = await startApi({
      issuer: as.issuer,
      env: { API_AUDIENCE: as.audience, API_TOKEN_MODE: 'introspection', API_INTROSPECTION_CLIENT_SECRET: 'not-the-secret' },
    });
    try {
      const token = (await as.login({ scope: 'movies:read' })).access_token;
      const r = await wrong.request('/api/movies/1', { token });
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('5');
      expect(await r.json()).toMatchObject({ code: 'authorization_server_unavailable' });
    } finally {
      await wrong.close();
    }
  });
});
