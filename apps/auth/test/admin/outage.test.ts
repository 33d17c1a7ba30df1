/**
 * The admin API during a PostgreSQL outage: a clean 503 problem with Retry-After, never a 500 or
 * a stack trace; the OpenAPI document needs no database; everything works again afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestAuthServer } from '../support/flow.ts';
import { addAdminClient, call, machineToken } from './admin-support.ts';

describe('the admin API during a database outage', () => {
  let server: TestAuthServer;
  let token: string;

  beforeAll(async () => {
    server = await startServer({ outage: true });
    await addAdminClient(server);
    token = await machineToken(server, 'admin:users:read admin:keys');
  });
  afterAll(() => server.close());

  it('answers 503 temporarily_unavailable problems while PostgreSQL is down and recovers', async () => {
    expect((await call(server, 'GET', '/users', { token })).status).toBe(200);
    await server.outage!.down();
    try {
      for (const path of ['/users', '/keys', '/users/00000000-0000-4000-8000-000000000000']) {
        const answer = await call(server, 'GET', path, { token });
        expect(answer.status, path).toBe(503);
        expect(answer.headers.get('retry-after')).toBe('5');
        expect(answer.headers.get('content-type')).toBe('application/problem+json');
        expect(answer.body).toEqual({
          type: 'urn:gatehouse:admin:problem:temporarily_unavailable',
          title: 'Service Unavailable',
          status: 503,
          detail: 'The service cannot reach its database right now. Try again in a moment.',
          code: 'temporarily_unavailable',
          instance: `/admin/v1${path}`,
        });
      }
      expect((await call(server, 'GET', '/openapi.json')).status).toBe(200);
    } finally {
      await server.outage!.up();
    }
    const back = await call(server, 'GET', '/users', { token });
    expect(back.status).toBe(200);
  });
});
