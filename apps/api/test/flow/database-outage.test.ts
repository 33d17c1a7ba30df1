/** A PostgreSQL outage under the API: clean 503 problem documents, /readyz 503, recovery by itself. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAuthServer, type TestAuthServer } from '@gatehouse/auth/testing';
import { startApi, type ApiHarness } from '../support/api-harness.ts';

describe('a database outage at the API', () => {
  let as: TestAuthServer;
  let api: ApiHarness;
  let token: string;

  beforeAll(async () => {
    as = await startTestAuthServer();
    api = await startApi({ issuer: as.issuer, env: { API_AUDIENCE: as.audience }, outage: true });
    token = (await as.login({ scope: 'movies:read movies:write' })).access_token;
    const created = await api.request('/api/movies', { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: '{"id":1,"title":"Alien"}' });
    expect(created.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await as?.close();
  });

  it('answers 503 database_unavailable while PostgreSQL is down, then serves again', async () => {
    await api.outage!.down();
    const read = await api.request('/api/movies/1', { token });
    expect(read.status).toBe(503);
    expect(read.headers.get('retry-after')).toBe('5');
    expect(read.headers.get('content-type')).toBe('application/problem+json');
    expect(await read.json()).toMatchObject({
      status: 503,
      code: 'database_unavailable',
      title: 'Service Unavailable',
      detail: 'the database cannot be reached right now; try again shortly',
    });
    const write = await api.request('/api/movies', { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: '{"id":2,"title":"Heat"}' });
    expect(write.status).toBe(503);
    expect((await api.request('/readyz')).status).toBe(503);
    expect((await api.request('/healthz')).status).toBe(200);

    await api.outage!.up();
    const again = await api.request('/api/movies/1', { token });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual([{ id: 1, title: 'Alien' }]);
    expect((await api.request('/readyz')).status).toBe(200);
  });
});
