/**
 * DPoP-bound access tokens (RFC 9449) from the real authorization server (`@gatehouse/auth/testing`),
 * in every way the API validates them: JWTs checked locally against the JWKS, JWTs checked by
 * introspection, and opaque tokens checked by introspection. Then a proof used at one API
 * instance is refused at a second one on the same database (SQLite file and PostgreSQL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { DPOP_SIGNING_ALGORITHMS } from '@gatehouse/contracts';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { dpopKey, startTestAuthServer, type DpopKey, type TestAuthServer } from '@gatehouse/auth/testing';
import { startApi, type ApiHarness } from '../support/api-harness.ts';

const ALGS = DPOP_SIGNING_ALGORITHMS.join(' ');
const JSON_HEADERS = { 'content-type': 'application/json' };

const dpopChallenge = (error: string, description: string, extra = '') =>
  `DPoP realm="gatehouse-api", error="${error}", error_description="${description}"${extra}, algs="${ALGS}"`;

async function expectRefused(r: Response, api: ApiHarness, path: string, code: string, description: string): Promise<void> {
  expect(r.status).toBe(401);
  expect(r.headers.get('www-authenticate')).toBe(dpopChallenge(code, description));
  expect(await r.json()).toMatchObject({ type: `${api.url}/problems/${code}`, status: 401, code, detail: description, instance: path });
}

const MODES = [
  { mode: 'JWTs checked against the JWKS', tokenFormat: 'jwt', tokenMode: 'jwt' },
  { mode: 'JWTs checked by introspection', tokenFormat: 'jwt', tokenMode: 'introspection' },
  { mode: 'opaque tokens checked by introspection', tokenFormat: 'opaque', tokenMode: 'introspection' },
] as const;

describe.each(MODES)('DPoP at the API: $mode', ({ tokenFormat, tokenMode }) => {
  let as: TestAuthServer;
  let api: ApiHarness;
  let key: DpopKey;
  let bound: string;
  let plain: string;

  /** A request with `Authorization: <scheme> <token>` and, when given, a DPoP proof. */
  const call = (path: string, authorization: string, proof?: string, init: RequestInit = {}) =>
    api.request(path, { ...init, headers: { ...(init.headers as Record<string, string>), authorization, ...(proof ? { dpop: proof } : {}) } });
  const proofFor = (method: string, path: string, token = bound) => key.proof(method, `${api.url}${path}`, { accessToken: token });

  beforeAll(async () => {
    as = await startTestAuthServer({ tokenFormat });
    api = await startApi({
      issuer: as.issuer,
      env: {
        API_AUDIENCE: as.audience,
        API_TOKEN_MODE: tokenMode,
        API_INTROSPECTION_CLIENT_ID: as.introspectionClient.clientId,
        API_INTROSPECTION_CLIENT_SECRET: as.introspectionClient.clientSecret,
      },
    });
    key = await dpopKey();
    const issued = await as.login({ scope: 'openid movies:read movies:write', dpop: (url) => key.proof('POST', url) });
    expect(issued.token_type).toBe('DPoP');
    bound = issued.access_token;
    plain = (await as.login({ scope: 'movies:read movies:write' })).access_token;
    const created = await call('/api/movies', `DPoP ${bound}`, await proofFor('POST', '/api/movies'), { method: 'POST', headers: JSON_HEADERS, body: '{"id":1,"title":"Alien"}' });
    expect(created.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await as?.close();
  });

  it('accepts a bound token as DPoP with a fresh proof for each request', async () => {
    if (tokenFormat === 'jwt') expect(decodeJwt(bound).cnf).toEqual({ jkt: key.jkt });
    for (let i = 0; i < 3; i++) {
      const r = await call('/api/movies/1', `DPoP ${bound}`, await proofFor('GET', '/api/movies/1'));
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual([{ id: 1, title: 'Alien' }]);
    }
    // htu leaves the query out; the scheme is case-insensitive.
    const listed = await call('/api/movies?limit=5', `dpop ${bound}`, await proofFor('GET', '/api/movies'));
    expect(listed.status).toBe(200);
  });

  it('refuses a bound token sent as Bearer, also once it was verified and cached', async () => {
    // Right after a good DPoP request, the token is in the verified-token cache (and the pre-routed read is on).
    expect((await call('/api/movies/1', `DPoP ${bound}`, await proofFor('GET', '/api/movies/1'))).status).toBe(200);
    for (const proof of [undefined, await proofFor('GET', '/api/movies/1')]) {
      await expectRefused(await call('/api/movies/1', `Bearer ${bound}`, proof), api, '/api/movies/1', 'invalid_token', 'the access token is bound to a DPoP key; send it as DPoP with a DPoP proof');
    }
  });

  it('refuses a missing, replayed or mismatched proof with invalid_dpop_proof', async () => {
    const path = '/api/movies/1';
    await expectRefused(await call(path, `DPoP ${bound}`), api, path, 'invalid_dpop_proof', 'a DPoP proof is required with this access token');
    const proof = await proofFor('GET', path);
    expect((await call(path, `DPoP ${bound}`, proof)).status).toBe(200);
    await expectRefused(await call(path, `DPoP ${bound}`, proof), api, path, 'invalid_dpop_proof', 'the DPoP proof was used before');
    await expectRefused(await call(path, `DPoP ${bound}`, await proofFor('DELETE', path)), api, path, 'invalid_dpop_proof', 'the DPoP proof htm does not match the request method');
    await expectRefused(await call(path, `DPoP ${bound}`, await proofFor('GET', '/api/movies/2')), api, path, 'invalid_dpop_proof', 'the DPoP proof htu does not match the request URL');
    await expectRefused(await call(path, `DPoP ${bound}`, await proofFor('GET', path, plain)), api, path, 'invalid_dpop_proof', 'the DPoP proof ath does not match the access token');
    const thief = await dpopKey();
    await expectRefused(await call(path, `DPoP ${bound}`, await thief.proof('GET', `${api.url}${path}`, { accessToken: bound })), api, path, 'invalid_dpop_proof', 'the DPoP proof key is not the key the access token is bound to');
    // The window is read on the API's clock: a proof made now is too old a minute and a second later.
    const old = await proofFor('GET', path);
    const saved = api.now;
    try {
      api.now = Date.now() + 61_000;
      await expectRefused(await call(path, `DPoP ${bound}`, old), api, path, 'invalid_dpop_proof', 'the DPoP proof iat is outside the accepted window');
    } finally {
      api.now = saved;
    }
  });

  // JWKS mode reads cnf itself; introspection's cnf is tested against a scripted answer (test/auth/introspection.test.ts).
  if (tokenMode === 'jwt') it('refuses a JWT whose cnf holds no usable jkt (another kind of binding)', async () => {
    for (const cnf of [{ 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' }, { jkt: '' }, 'jkt']) {
      const forged = await as.sign({ ...decodeJwt(plain), cnf });
      const r = await api.request('/api/movies/1', { token: forged });
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="gatehouse-api", error="invalid_token", error_description="the access token lacks a valid cnf claim"');
    }
  });

  it('takes a plain token as Bearer only', async () => {
    expect((await api.request('/api/movies/1', { token: plain })).status).toBe(200);
    await expectRefused(await call('/api/movies/1', `DPoP ${plain}`, await proofFor('GET', '/api/movies/1', plain)), api, '/api/movies/1', 'invalid_token', 'the access token is not bound to a DPoP key; send it as Bearer');
  });

  it('answers a DPoP request without the needed scope with a DPoP insufficient_scope challenge', async () => {
    const readOnly = (await as.login({ scope: 'movies:read', dpop: (url) => key.proof('POST', url) })).access_token;
    const r = await call('/api/movies/1', `DPoP ${readOnly}`, await proofFor('DELETE', '/api/movies/1', readOnly), { method: 'DELETE' });
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toBe(dpopChallenge('insufficient_scope', 'this request needs the scope movies:write', ', scope="movies:write"'));
    expect(await r.json()).toMatchObject({ code: 'insufficient_scope', scope: 'movies:write' });
  });

  it('names both schemes and the proof algorithms when no token is sent', async () => {
    const r = await api.request('/api/movies/1');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(`Bearer realm="gatehouse-api", DPoP realm="gatehouse-api", algs="${ALGS}"`);
  });
});

describe.each(TEST_ENGINES)('a DPoP proof is accepted once by two API instances on one %s database', (engine) => {
  let as: TestAuthServer;
  let first: ApiHarness;
  let second: ApiHarness;
  let key: DpopKey;

  beforeAll(async () => {
    as = await startTestAuthServer();
    first = await startApi({ issuer: as.issuer, engine, env: { API_AUDIENCE: as.audience } });
    // Behind one load balancer: both instances are reached at the same public URL.
    second = await startApi({ issuer: as.issuer, shareDatabaseOf: first, env: { API_AUDIENCE: as.audience, API_PUBLIC_URL: first.url } });
    key = await dpopKey();
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await as?.close();
  });

  it('refuses at the second instance the proof the first accepted, and the other way round', async () => {
    const token = (await as.login({ scope: 'movies:read', dpop: (url) => key.proof('POST', url) })).access_token;
    const path = '/api/movies';
    const send = (api: ApiHarness, proof: string) => api.request(path, { headers: { authorization: `DPoP ${token}`, dpop: proof } });
    const one = await key.proof('GET', `${first.url}${path}`, { accessToken: token });
    expect((await send(first, one)).status).toBe(200);
    await expectRefused(await send(second, one), first, path, 'invalid_dpop_proof', 'the DPoP proof was used before');
    const two = await key.proof('GET', `${first.url}${path}`, { accessToken: token });
    expect((await send(second, two)).status).toBe(200);
    await expectRefused(await send(first, two), first, path, 'invalid_dpop_proof', 'the DPoP proof was used before');
  });
});
