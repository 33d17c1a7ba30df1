/**
 * Introspection mode against a scripted stand-in endpoint: what an active answer must say,
 * how long it is reused, and that concurrent first requests share one call.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../support/api-harness.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

let issuer: LocalIssuer;
let api: ApiHarness;
const T0 = 1_800_000_000_000;
const exp = T0 / 1000 + 3600;

beforeEach(async () => {
  issuer = await startLocalIssuer();
  api = await startApi({
    issuer: issuer.issuer,
    now: T0,
    env: {
      API_TOKEN_MODE: 'introspection',
      API_INTROSPECTION_CLIENT_ID: issuer.introspectionClient.clientId,
      API_INTROSPECTION_CLIENT_SECRET: issuer.introspectionClient.clientSecret,
    },
  });
});
afterEach(async () => {
  await api.close();
  await issuer.close();
});

const calls = () => issuer.hits.get('/oauth2/v1/introspect') ?? 0;
const active = (extra: Record<string, unknown> = {}) => ({
  active: true,
  iss: issuer.issuer,
  aud: issuer.audience,
  sub: 'user-1',
  client_id: 'app-one',
  scope: 'movies:read',
  token_type: 'Bearer',
  exp,
  iat: exp - 3600,
  ...extra,
});

describe('introspection', () => {
  it('reuses an active answer up to its cap, then asks again', async () => {
    issuer.introspection.set('tok-1', active());
    for (let i = 0; i < 3; i++) expect((await api.request('/api/movies', { token: 'tok-1' })).status).toBe(200);
    expect(calls()).toBe(1);
    api.now = T0 + 59_999;
    expect((await api.request('/api/movies', { token: 'tok-1' })).status).toBe(200);
    expect(calls()).toBe(1);
    api.now = T0 + 60_000;
    issuer.introspection.set('tok-1', { active: false });
    const r = await api.request('/api/movies', { token: 'tok-1' });
    expect(r.status).toBe(401);
    expect(calls()).toBe(2);
  });

  it('never reuses an answer past the token exp', async () => {
    issuer.introspection.set('tok-2', active({ exp: T0 / 1000 + 10 }));
    expect((await api.request('/api/movies', { token: 'tok-2' })).status).toBe(200);
    api.now = T0 + 39_999;
    expect((await api.request('/api/movies', { token: 'tok-2' })).status).toBe(200);
    expect(calls()).toBe(1);
    api.now = T0 + 40_000;
    const r = await api.request('/api/movies', { token: 'tok-2' });
    expect(r.headers.get('www-authenticate')).toContain('error_description="the access token expired"');
  });

  it('shares one call among concurrent first requests', async () => {
    issuer.introspection.set('tok-3', active());
    const statuses = await Promise.all(Array.from({ length: 10 }, () => api.request('/api/movies', { token: 'tok-3' }).then((r) => r.status)));
    expect(statuses).toEqual(Array(10).fill(200));
    expect(calls()).toBe(1);
  });

  it.each([
    [{ aud: 'http://localhost:4000/other' }, 'the access token was not issued for this API'],
    [{ aud: undefined }, 'the access token was not issued for this API'],
    [{ iss: 'http://evil.example' }, 'the access token was not issued by the trusted issuer'],
    [{ token_type: 'refresh_token' }, 'the token is not an access token'],
    [{ token_type: 'DPoP' }, 'the access token lacks a valid cnf claim'],
    [{ token_type: 'DPoP', cnf: {} }, 'the access token lacks a valid cnf claim'],
    [{ cnf: { 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' } }, 'the access token lacks a valid cnf claim'],
  ])('refuses an active answer with %j', async (override, description) => {
    const answer = active(override);
    for (const key of Object.keys(answer)) if ((answer as Record<string, unknown>)[key] === undefined) delete (answer as Record<string, unknown>)[key];
    issuer.introspection.set('tok-4', answer);
    const r = await api.request('/api/movies', { token: 'tok-4' });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(`Bearer realm="gatehouse-api", error="invalid_token", error_description="${description}"`);
    const again = await api.request('/api/movies', { token: 'tok-4' });
    expect(again.status).toBe(401);
    expect(calls()).toBe(2);
  });

  it('takes a cnf.jkt as a DPoP binding, whatever the token_type says', async () => {
    issuer.introspection.set('tok-6', active({ token_type: 'Bearer', cnf: { jkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I' } }));
    const r = await api.request('/api/movies', { token: 'tok-6' });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(
      'DPoP realm="gatehouse-api", error="invalid_token", error_description="the access token is bound to a DPoP key; send it as DPoP with a DPoP proof", algs="ES256 PS256 RS256 Ed25519 EdDSA"',
    );
  });

  it('checks the scope of every request against the cached answer', async () => {
    issuer.introspection.set('tok-5', active({ scope: 'movies:read' }));
    expect((await api.request('/api/movies', { token: 'tok-5' })).status).toBe(200);
    expect((await api.request('/api/movies', { method: 'POST', token: 'tok-5', headers: { 'content-type': 'application/json' }, body: '{"id":1,"title":"x"}' })).status).toBe(403);
    expect((await api.request('/api/cars', { token: 'tok-5' })).status).toBe(403);
    expect(calls()).toBe(1);
  });

  it('answers 503 when the endpoint fails, and is not ready without discovery', async () => {
    issuer.failing = true;
    const r = await api.request('/api/movies', { token: 'tok-6' });
    expect(r.status).toBe(503);
    expect((await api.request('/readyz')).status).toBe(503);
  });
});
