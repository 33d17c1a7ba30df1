/**
 * JWKS handling against a local stand-in issuer whose fetches we can count: loading for
 * readiness, the rate-limited refetch on an unknown kid, keys that leave the set, outages.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../support/api-harness.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

let issuer: LocalIssuer;
let api: ApiHarness;
const T0 = 1_800_000_000_000;

beforeEach(async () => {
  issuer = await startLocalIssuer({ now: () => api?.now ?? T0 });
  api = await startApi({ issuer: issuer.issuer, now: T0 });
});
afterEach(async () => {
  await api.close();
  await issuer.close();
});

const keysFetched = () => issuer.hits.get('/oauth2/v1/keys') ?? 0;

describe('JWKS', () => {
  it('is loaded once for readiness and reused', async () => {
    expect((await api.request('/readyz')).status).toBe(200);
    expect(keysFetched()).toBe(1);
    const token = await issuer.sign();
    expect((await api.request('/api/movies', { token })).status).toBe(200);
    expect((await api.request('/api/movies', { token: await issuer.sign() })).status).toBe(200);
    expect(keysFetched()).toBe(1);
    expect(issuer.hits.get('/.well-known/openid-configuration')).toBe(1);
  });

  it('refetches once for an unknown kid, then not again within the cooldown', async () => {
    expect((await api.request('/api/movies', { token: await issuer.sign() })).status).toBe(200);
    await issuer.rotate();
    expect((await api.request('/api/movies', { token: await issuer.sign() })).status).toBe(200);
    expect(keysFetched()).toBe(2);
    // Within the cooldown, made-up kids cannot make the API hammer the authorization server…
    for (let i = 0; i < 3; i++) {
      const r = await api.request('/api/movies', { token: await issuer.sign({}, { kid: `bogus-${i}` }) });
      expect(r.status).toBe(401);
    }
    expect(keysFetched()).toBe(2);
    // …and a second rotation inside it waits for the cooldown to end.
    await issuer.rotate();
    const rotatedAgain = await issuer.sign();
    expect((await api.request('/api/movies', { token: rotatedAgain })).status).toBe(401);
    expect(keysFetched()).toBe(2);
    api.now += 29_999;
    expect((await api.request('/api/movies', { token: rotatedAgain })).status).toBe(401);
    api.now += 1;
    expect((await api.request('/api/movies', { token: rotatedAgain })).status).toBe(200);
    expect(keysFetched()).toBe(3);
  });

  it('forgets cached tokens of a key that left the set', async () => {
    const old = await issuer.sign();
    expect((await api.request('/api/movies', { token: old })).status).toBe(200);
    await issuer.rotate(true);
    expect((await api.request('/api/movies', { token: await issuer.sign() })).status).toBe(200);
    const r = await api.request('/api/movies', { token: old });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(
      'Bearer realm="gatehouse-api", error="invalid_token", error_description="the access token is signed with an unknown key"',
    );
  });

  it('refetches a set older than its max age', async () => {
    expect((await api.request('/api/movies', { token: await issuer.sign() })).status).toBe(200);
    api.now += 600_000;
    expect((await api.request('/api/movies', { token: await issuer.sign() })).status).toBe(200);
    expect(keysFetched()).toBe(2);
  });

  it('refuses a token signed by a foreign key under a known kid', async () => {
    const r = await api.request('/api/movies', { token: await issuer.sign({}, {}, 'foreign') });
    expect(r.status).toBe(401);
    const forged = await issuer.sign({}, { kid: 'key-1' }, 'foreign');
    const f = await api.request('/api/movies', { token: forged });
    expect(f.headers.get('www-authenticate')).toContain('error_description="the access token signature is invalid"');
  });

  it('answers 503 and not ready while the authorization server is down', async () => {
    issuer.failing = true;
    const r = await api.request('/api/movies', { token: await issuer.sign() });
    expect(r.status).toBe(503);
    expect(await r.json()).toMatchObject({ code: 'authorization_server_unavailable', status: 503 });
    const ready = await api.request('/readyz');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'not_ready', checks: { database: 'ok', authorizationServer: 'failing', migrations: 'ok' } });
    issuer.failing = false;
    api.now += 5_000;
    expect((await api.request('/readyz')).status).toBe(200);
    expect((await api.request('/api/movies', { token: await issuer.sign() })).status).toBe(200);
  });

  it('honours nbf with the leeway', async () => {
    const nbf = Math.floor(T0 / 1000) + 60;
    const token = await issuer.sign({ nbf });
    const early = await api.request('/api/movies', { token });
    expect(early.headers.get('www-authenticate')).toContain('error_description="the access token is not valid yet"');
    api.now = (nbf - 30) * 1000;
    expect((await api.request('/api/movies', { token })).status).toBe(200);
  });

  it('requires the RFC 9068 claims', async () => {
    for (const claim of ['exp', 'sub', 'client_id', 'jti', 'iat']) {
      const r = await api.request('/api/movies', { token: await issuer.sign({ [claim]: undefined }) });
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toContain(`error_description="the access token lacks a valid ${claim} claim"`);
    }
  });
});

describe('discovery', () => {
  it('refuses a document naming another issuer', async () => {
    const other = await startApi({ issuer: issuer.issuer.replace('127.0.0.1', 'localhost'), now: T0 });
    try {
      const r = await other.request('/api/movies', { token: await issuer.sign() });
      expect(r.status).toBe(503);
      expect((await other.request('/readyz')).status).toBe(503);
    } finally {
      await other.close();
    }
  });
});
