/**
 * GET /admin/v1/users and /admin/v1/users/{id}: search, keyset paging, details with the second
 * factors enrolled, the brute-force lock and its end (by the injected clock); 401 without a token,
 * 403 without admin:users:read, 400 on bad input, 404 on an unknown id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { startServer, type TestAuthServer } from '../support/flow.ts';
import { addAdminClient, call, machineToken, problemOf } from './admin-support.ts';

describe.each(TEST_ENGINES)('reading users over the admin API on %s', (engine) => {
  let server: TestAuthServer;
  let reader: string;
  let ids: Record<string, string>;
  const clock = { now: Date.now() };

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now });
    await addAdminClient(server);
    reader = await machineToken(server, 'admin:users:read');
    ids = {};
    for (const [username, email] of [
      ['carol', 'carol@Example.org'],
      ['alice', 'alice@example.com'],
      ['bob', 'robert@example.com'],
      ['dave_x', 'dave@sample.net'],
      ['daveyx', 'DAVID@sample.net'],
    ] as const) {
      await server.createUser({ username, email, groups: username === 'alice' ? ['admins', 'editors'] : ['viewers'] });
      ids[username] = (await server.app.services.accounts.findByUsername(username))!.id;
    }
  });
  afterAll(() => server.close());

  const names = (body: Record<string, unknown>) => (body.items as { username: string }[]).map((u) => u.username);

  it('lists users by username, without credentials', async () => {
    const answer = await call(server, 'GET', '/users', { token: reader });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(names(answer.body)).toEqual(['alice', 'bob', 'carol', 'dave_x', 'daveyx']);
    expect(answer.body.next).toBeNull();
    const alice = (answer.body.items as Record<string, unknown>[])[0]!;
    expect(alice).toEqual({
      id: ids.alice,
      username: 'alice',
      email: 'alice@example.com',
      name: 'Test alice',
      groups: ['admins', 'editors'],
      disabled: false,
      disabled_at: null,
      locked: false,
      locked_until: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('pages with limit and the opaque next cursor until next is null', async () => {
    const first = await call(server, 'GET', '/users?limit=2', { token: reader });
    expect(names(first.body)).toEqual(['alice', 'bob']);
    expect(typeof first.body.next).toBe('string');
    const second = await call(server, 'GET', `/users?limit=2&after=${encodeURIComponent(String(first.body.next))}`, { token: reader });
    expect(names(second.body)).toEqual(['carol', 'dave_x']);
    const third = await call(server, 'GET', `/users?limit=2&after=${encodeURIComponent(String(second.body.next))}`, { token: reader });
    expect(names(third.body)).toEqual(['daveyx']);
    expect(third.body.next).toBeNull();
  });

  it('searches username and email, ignoring case; % and _ are literal', async () => {
    expect(names((await call(server, 'GET', '/users?q=EXAMPLE.', { token: reader })).body)).toEqual(['alice', 'bob', 'carol']);
    expect(names((await call(server, 'GET', '/users?q=robert', { token: reader })).body)).toEqual(['bob']);
    expect(names((await call(server, 'GET', '/users?q=david', { token: reader })).body)).toEqual(['daveyx']);
    expect(names((await call(server, 'GET', '/users?q=dave_', { token: reader })).body)).toEqual(['dave_x']);
    expect(names((await call(server, 'GET', '/users?q=%25', { token: reader })).body)).toEqual([]);
    const paged = await call(server, 'GET', '/users?q=sample&limit=1', { token: reader });
    expect(names(paged.body)).toEqual(['dave_x']);
    const rest = await call(server, 'GET', `/users?q=sample&limit=1&after=${encodeURIComponent(String(paged.body.next))}`, { token: reader });
    expect(names(rest.body)).toEqual(['daveyx']);
  });

  it('bad input: a cursor this server did not issue, a limit out of range', async () => {
    const cursor = await call(server, 'GET', '/users?after=garbage', { token: reader });
    expect(cursor.status).toBe(400);
    expect(cursor.body).toMatchObject(problemOf(400, 'validation_failed', '/users'));
    expect(cursor.body.errors).toEqual([{ field: 'after', message: 'the cursor is not one this server issued' }]);
    for (const limit of ['201', 'abc', '1.5']) {
      const answer = await call(server, 'GET', `/users?limit=${limit}`, { token: reader });
      expect(answer.status, limit).toBe(400);
      expect((answer.body.errors as { field: string }[])[0]!.field).toBe('limit');
    }
  });

  it('NUL and other control characters in a path or query value are refused, never sent to the database', async () => {
    const nulCursor = Buffer.from(JSON.stringify({ u: 'a\u0000b' })).toString('base64url');
    const cursor = await call(server, 'GET', `/users?after=${nulCursor}`, { token: reader });
    expect(cursor.status).toBe(400);
    expect(cursor.body.errors).toEqual([{ field: 'after', message: 'the cursor is not one this server issued' }]);
    const q = await call(server, 'GET', '/users?q=a%00b', { token: reader });
    expect(q.status).toBe(400);
    expect(q.body.errors).toEqual([{ field: 'q', message: 'must not contain control characters' }]);
    for (const id of ['%00', 'a%00b', '%0A']) {
      const answer = await call(server, 'GET', `/users/${id}`, { token: reader });
      expect(answer.status, id).toBe(404);
      expect(answer.body.code).toBe('not_found');
    }
    const grant = await call(server, 'DELETE', `/users/${ids.alice}/grants/%00`, { token: await machineToken(server, 'admin:users:write') });
    expect(grant.status).toBe(404);
  });

  it('gets one user with the second factors enrolled', async () => {
    const answer = await call(server, 'GET', `/users/${ids.alice}`, { token: reader });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: ids.alice, username: 'alice', groups: ['admins', 'editors'], disabled: false });
    expect(answer.body.second_factors).toEqual({ totp: true, devices: 0, passkeys: 0, recovery_codes_left: 0 });
    await server.app.services.recoveryCodes.replace(ids.alice!);
    const after = await call(server, 'GET', `/users/${ids.alice}`, { token: reader });
    expect((after.body.second_factors as { recovery_codes_left: number }).recovery_codes_left).toBe(10);
  });

  it('an unknown id: 404 user_not_found', async () => {
    const answer = await call(server, 'GET', '/users/00000000-0000-4000-8000-000000000000', { token: reader });
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ ...problemOf(404, 'user_not_found', '/users/00000000-0000-4000-8000-000000000000'), detail: 'There is no user with this id.' });
  });

  it('shows the brute-force lock of the password step or second factor, until when, as authctl user list does', async () => {
    const { regulator } = server.app.services;
    // 30 password failures of carol, a second apart, lock her account for the ban time (an hour)
    // from the last one; 5 second-factor failures of bob only delay his next attempt.
    for (let i = 0; i < 30; i++) {
      await regulator.fail(['account:carol']);
      if (i < 5) await regulator.fail(['mfa:bob']);
      clock.now += 1000;
    }
    const lastFailure = clock.now - 1000;
    clock.now += 500;
    const until = new Date(lastFailure + 3_600_000).toISOString();
    const lockOf = (u: Record<string, unknown>) => [u.username, u.locked, u.locked_until];
    const list = await call(server, 'GET', '/users', { token: reader });
    expect(list.status).toBe(200);
    expect((list.body.items as Record<string, unknown>[]).map(lockOf)).toEqual([
      ['alice', false, null],
      ['bob', false, null],
      ['carol', true, until],
      ['dave_x', false, null],
      ['daveyx', false, null],
    ]);
    const carol = await call(server, 'GET', `/users/${ids.carol}`, { token: reader });
    expect(lockOf(carol.body)).toEqual(['carol', true, until]);
    expect(lockOf((await call(server, 'GET', `/users/${ids.bob}`, { token: reader })).body)).toEqual(['bob', false, null]);
  });

  it('no token: 401; a token without admin:users:read: 403', async () => {
    for (const path of ['/users', `/users/${ids.alice}`]) {
      expect((await call(server, 'GET', path)).status).toBe(401);
      const writer = await machineToken(server, 'admin:users:write');
      const refused = await call(server, 'GET', path, { token: writer });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('insufficient_scope');
    }
  });
});
