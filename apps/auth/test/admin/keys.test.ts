/**
 * GET /admin/v1/keys and POST /admin/v1/keys/rotate (admin:keys): states and dates without key
 * material; a rotation signs the next token with the new key at once, keeps the old key
 * published, and is audited with the actor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { captureLogger } from '../support/push.ts';
import { decodeProtectedHeader, startServer, type TestAuthServer } from '../support/flow.ts';
import { addAdminClient, call, machineToken, problemOf } from './admin-support.ts';

describe.each(TEST_ENGINES)('signing keys over the admin API on %s', (engine) => {
  let server: TestAuthServer;
  const log = captureLogger();
  let keys: string;

  beforeAll(async () => {
    server = await startServer({ engine, logger: log.logger });
    await addAdminClient(server);
    keys = await machineToken(server, 'admin:keys');
  });
  afterAll(() => server.close());

  it('lists the keys with state and dates, never key material', async () => {
    const answer = await call(server, 'GET', '/keys', { token: keys });
    expect(answer.status).toBe(200);
    const items = answer.body.items as Record<string, unknown>[];
    expect(items).toHaveLength(1);
    expect(Object.keys(items[0]!).sort()).toEqual(['activates_at', 'alg', 'created_at', 'expires_at', 'kid', 'retired_at', 'state']);
    expect(items[0]).toMatchObject({ alg: 'RS256', state: 'active', retired_at: null, expires_at: null, kid: decodeProtectedHeader(keys).kid });
  });

  it('rotate: the new key signs the next token at once, the old one stays published, audited with the actor', async () => {
    const before = decodeProtectedHeader(keys).kid;
    const answer = await call(server, 'POST', '/keys/rotate', { token: keys });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ retired: [before], discarded: [], retired_expire_at: expect.stringMatching(/^\d{4}-/) });
    const kid = String(answer.body.kid);
    expect(kid).not.toBe(before);
    const next = await machineToken(server, 'admin:keys');
    expect(decodeProtectedHeader(next).kid).toBe(kid);
    const jwks = (await (await fetch(`${server.issuer}/oauth2/v1/keys`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual([kid, before]);
    // The token signed by the retired key still works until it expires.
    expect((await call(server, 'GET', '/keys', { token: keys })).body.items).toEqual([
      expect.objectContaining({ kid, state: 'active' }),
      expect.objectContaining({ kid: before, state: 'retired' }),
    ]);
    expect(log.audits('admin.keys.rotated').at(-1)).toMatchObject({ actor_kind: 'client', actor: 'admin-machine', kid, retired: 1 });
  });

  it.each([
    ['GET', '/keys'],
    ['POST', '/keys/rotate'],
  ])('%s %s: 401 without a token, 403 without admin:keys, 405 for another method', async (method, path) => {
    const none = await call(server, method, path);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject(problemOf(401, 'invalid_token', path));
    const users = await machineToken(server, 'admin:users:read admin:users:write');
    const wrong = await call(server, method, path, { token: users });
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get('www-authenticate')).toContain('scope="admin:keys"');
    const other = await call(server, method === 'GET' ? 'DELETE' : 'GET', path, { token: keys });
    expect(other.status).toBe(405);
    expect(other.headers.get('allow')).toBe(method);
  });

  it('bad input: a query parameter the route does not take', async () => {
    const answer = await call(server, 'GET', '/keys?all=1', { token: keys });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject(problemOf(400, 'validation_failed', '/keys'));
    expect(answer.body.errors).toEqual([{ field: 'all', message: 'is not a known parameter' }]);
  });
});
