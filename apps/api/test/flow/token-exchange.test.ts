/**
 * A token from token exchange (RFC 8693) at the real authorization server is an API token like any
 * other: the API accepts it for its audience within its narrower scope, and another API refuses it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { startTestAuthServer, type TestAuthServer } from '@gatehouse/auth/testing';
import { startApi, type ApiHarness } from '../support/api-harness.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const REPORTS = { clientId: 'reports', clientSecret: 'reports-secret-0123456789abcdef' };
const JSON_HEADERS = { 'content-type': 'application/json' };

describe('an exchanged token at the API', () => {
  let as: TestAuthServer;
  let api: ApiHarness;
  let subject: string;
  let exchanged: string;

  beforeAll(async () => {
    as = await startTestAuthServer();
    api = await startApi({ issuer: as.issuer, env: { API_AUDIENCE: as.audience } });
    await as.app.services.clients.create({ ...REPORTS, redirectUris: [], grantTypes: [GRANT], tokenExchange: { audiences: [as.audience], scopes: ['movies:read'] } });
    subject = (await as.login({ scope: 'openid movies:read movies:write' })).access_token;
    expect((await api.request('/api/movies', { method: 'POST', token: subject, headers: JSON_HEADERS, body: '{"id":1,"title":"Alien"}' })).status).toBe(201);
    const res = await fetch(`${as.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${REPORTS.clientId}:${REPORTS.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: GRANT, subject_token: subject, subject_token_type: ACCESS_TOKEN, audience: as.audience, scope: 'movies:read' }),
    });
    expect(res.status).toBe(200);
    exchanged = ((await res.json()) as { access_token: string }).access_token;
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await as?.close();
  });

  it('is accepted for reads, as the user and with the acting client named', async () => {
    expect(decodeJwt(exchanged)).toMatchObject({ sub: decodeJwt(subject).sub, client_id: REPORTS.clientId, act: { sub: REPORTS.clientId }, scope: 'movies:read' });
    const r = await api.request('/api/movies/1', { token: exchanged });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual([{ id: 1, title: 'Alien' }]);
  });

  it('is refused a write: the exchange narrowed the scope', async () => {
    const r = await api.request('/api/movies', { method: 'POST', token: exchanged, headers: JSON_HEADERS, body: '{"id":2,"title":"Heat"}' });
    expect(r.status).toBe(403);
    expect(await r.json()).toMatchObject({ status: 403, code: 'insufficient_scope' });
  });

  it('is refused by an API of another audience', async () => {
    const other = await startApi({ issuer: as.issuer, env: { API_AUDIENCE: 'http://localhost:4000/other-api' } });
    try {
      const r = await other.request('/api/movies/1', { token: exchanged });
      expect(r.status).toBe(401);
      expect(await r.json()).toMatchObject({ code: 'invalid_token', detail: 'the access token was not issued for this API' });
    } finally {
      await other.close();
    }
  });
});
