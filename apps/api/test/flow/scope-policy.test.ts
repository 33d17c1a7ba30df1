/**
 * The access policy of apps/auth, end to end: a real authorization server
 * (`@gatehouse/auth/testing`) restricts `movies:write` to the group `editors`. A user outside
 * the group signs in asking for it, gets a token without it, and the API refuses the write
 * with 403 insufficient_scope; an editor's token writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { startTestAuthServer, type TestAuthServer } from '@gatehouse/auth/testing';
import { startApi, type ApiHarness } from '../support/api-harness.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };
const SCOPE = 'openid movies:read movies:write';

describe('a token limited by the access policy', () => {
  let as: TestAuthServer;
  let api: ApiHarness;

  beforeAll(async () => {
    as = await startTestAuthServer();
    await as.app.services.scopePolicies.restrict('movies:write', ['editors']);
    api = await startApi({ issuer: as.issuer, env: { API_AUDIENCE: as.audience } });
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await as?.close();
  });

  it('a user outside `editors` gets no movies:write, and the API refuses the write 403 insufficient_scope', async () => {
    const tokens = await as.login({ scope: SCOPE, username: 'viewer', groups: ['viewers'] });
    expect(tokens.scope).toBe('openid movies:read');
    expect(decodeJwt(tokens.access_token).scope).toBe('openid movies:read');
    const write = await api.request('/api/movies', { method: 'POST', token: tokens.access_token, headers: JSON_HEADERS, body: '{"id":7,"title":"Heat"}' });
    expect(write.status).toBe(403);
    expect(write.headers.get('www-authenticate')).toBe(
      'Bearer realm="gatehouse-api", error="insufficient_scope", error_description="this request needs the scope movies:write", scope="movies:write"',
    );
    expect(await write.json()).toMatchObject({ status: 403, code: 'insufficient_scope', scope: 'movies:write' });
    // Reading is still allowed, and nothing was written.
    const read = await api.request('/api/movies', { token: tokens.access_token });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual([]);
  });

  it('an editor gets movies:write and the write is 201', async () => {
    const tokens = await as.login({ scope: SCOPE, username: 'editor', groups: ['editors'] });
    expect(tokens.scope).toBe('openid movies:read movies:write');
    expect(decodeJwt(tokens.access_token).scope).toBe('openid movies:read movies:write');
    const write = await api.request('/api/movies', { method: 'POST', token: tokens.access_token, headers: JSON_HEADERS, body: '{"id":8,"title":"Ran"}' });
    expect(write.status).toBe(201);
  });
});
