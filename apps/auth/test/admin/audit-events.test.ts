/**
 * GET /admin/v1/audit-events (admin:audit:read): the stored audit trail over HTTP, with the
 * filters and paging of `authctl audit`; 401 without a token, 403 without the scope, 400
 * `validation_failed` naming the parameter; a change made through the admin API is stored with
 * the machine's actor. Time moves only by the injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import type { AuditRecord } from '../../src/audit/audit-event-store.ts';
import { startServer, type TestAuthServer } from '../support/flow.ts';
import { addAdminClient, call, machineToken, problemOf } from './admin-support.ts';

const HOUR = 3_600_000;
type Item = Record<string, unknown> & { id: string; event: string; occurred_at: string };

describe.each(TEST_ENGINES)('GET /admin/v1/audit-events on %s', (engine) => {
  let server: TestAuthServer;
  const start = Date.parse('2026-11-23T12:00:00.000Z');
  let now = start;
  let auditor: string;
  let aliceId: string;

  const record = (hoursAgo: number, event: string, extra: Partial<AuditRecord> = {}): AuditRecord => ({
    occurredAt: start - hoursAgo * HOUR,
    event,
    accountId: null,
    username: null,
    clientId: null,
    actorKind: null,
    actor: null,
    ip: null,
    fields: {},
    ...extra,
  });

  async function get(query: string, token: string | null = auditor) {
    await server.app.flushAudit();
    return call(server, 'GET', `/audit-events${query}`, { token });
  }
  const events = (body: Record<string, unknown>) => (body.items as Item[]).map((e) => `${e.event} ${e.occurred_at.slice(0, 13)}`);

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => now });
    await addAdminClient(server);
    await server.createUser({ username: 'alice' });
    aliceId = (await server.app.services.accounts.findByUsername('alice'))!.id;
    await server.app.services.auditEvents.append([
      record(50, 'login.password.failure', { username: 'alice', ip: '10.0.0.1' }),
      record(30, 'login.password.success', { accountId: aliceId, ip: '10.0.0.1' }),
      record(30, 'login.mfa.success', { accountId: aliceId, ip: '10.0.0.1', requestId: 'nginx-req-7', fields: { method: 'totp' } }),
      record(20, 'token.issued', { clientId: 'app-one', fields: { grant_type: 'authorization_code' } }),
      record(2, 'login.password.failure', { username: 'mallory', ip: '10.0.0.66' }),
    ]);
    // The auditor's own token request is an audit event too (token.issued, client admin-machine, now).
    auditor = await machineToken(server, 'admin:audit:read');
  });
  afterAll(() => server.close());

  it('answers the trail newest first, in the documented shape, no-store', async () => {
    const answer = await get('');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(events(answer.body)).toEqual([
      'token.issued 2026-11-23T12',
      'login.password.failure 2026-11-23T10',
      'token.issued 2026-11-22T16',
      'login.mfa.success 2026-11-22T06',
      'login.password.success 2026-11-22T06',
      'login.password.failure 2026-11-21T10',
    ]);
    expect(answer.body.next).toBeNull();
    const items = answer.body.items as Item[];
    expect(items[0]).toEqual({
      id: expect.stringMatching(/^\d+$/),
      occurred_at: '2026-11-23T12:00:00.000Z',
      event: 'token.issued',
      account_id: null,
      username: null,
      client_id: 'admin-machine',
      actor_kind: null,
      actor: null,
      ip: null,
      // The token request that issued it (its X-Request-Id: a new UUID here).
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      fields: { grant_type: 'client_credentials' },
    });
    expect(items[3]).toEqual({
      id: expect.stringMatching(/^\d+$/),
      occurred_at: '2026-11-22T06:00:00.000Z',
      event: 'login.mfa.success',
      account_id: aliceId,
      username: null,
      client_id: null,
      actor_kind: null,
      actor: null,
      ip: '10.0.0.1',
      request_id: 'nginx-req-7',
      fields: { method: 'totp' },
    });
  });

  it('filters by user, client, event (name or prefix) and time, combined', async () => {
    expect(events((await get('?user=Alice')).body)).toEqual(['login.mfa.success 2026-11-22T06', 'login.password.success 2026-11-22T06', 'login.password.failure 2026-11-21T10']);
    expect(events((await get('?client=app-one')).body)).toEqual(['token.issued 2026-11-22T16']);
    expect(events((await get('?event=token.issued')).body)).toEqual(['token.issued 2026-11-23T12', 'token.issued 2026-11-22T16']);
    expect(events((await get('?event=login.&since=24h')).body)).toEqual(['login.password.failure 2026-11-23T10']);
    expect(events((await get('?user=alice&event=login.password.')).body)).toEqual(['login.password.success 2026-11-22T06', 'login.password.failure 2026-11-21T10']);
    const range = `?since=${encodeURIComponent('2026-11-22T00:00:00Z')}&until=${encodeURIComponent('2026-11-22T16:00:00+00:00')}`;
    expect(events((await get(range)).body)).toEqual(['login.mfa.success 2026-11-22T06', 'login.password.success 2026-11-22T06']);
    expect(events((await get('?user=nobody')).body)).toEqual([]);
  });

  it('pages with limit and the opaque next cursor: every event once, then next is null', async () => {
    const all = ((await get('?limit=200')).body.items as Item[]).map((e) => e.id);
    const seen: string[] = [];
    const sizes: number[] = [];
    let next: unknown = undefined;
    do {
      const answer: Awaited<ReturnType<typeof get>> = await get(`?limit=4${next ? `&after=${encodeURIComponent(String(next))}` : ''}`);
      expect(answer.status).toBe(200);
      sizes.push((answer.body.items as Item[]).length);
      seen.push(...(answer.body.items as Item[]).map((e) => e.id));
      next = answer.body.next;
    } while (next);
    expect(sizes).toEqual([4, 2]);
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(all.length);
  });

  it('a change through the admin API is stored with the machine as actor', async () => {
    now += 60_000;
    const writer = await machineToken(server, 'admin:users:write');
    expect((await call(server, 'POST', `/users/${aliceId}/disable`, { token: writer })).status).toBe(200);
    const answer = await get('?event=admin.');
    expect(answer.body.items).toEqual([
      expect.objectContaining({ event: 'admin.user.disabled', occurred_at: '2026-11-23T12:01:00.000Z', account_id: aliceId, actor_kind: 'client', actor: 'admin-machine' }),
    ]);
  });

  it('lists what was just done, without waiting for the batch window of the stored trail', async () => {
    now += 60_000;
    const writer = await machineToken(server, 'admin:users:write');
    // Nothing waits in the queue now: the next event opens a new batch window (100 ms).
    await server.app.flushAudit();
    expect((await call(server, 'POST', `/users/${aliceId}/enable`, { token: writer })).status).toBe(200);
    // No flushAudit() here (get() above calls it): the listing itself writes what waits.
    const answer = await call(server, 'GET', '/audit-events?event=admin.user.enabled', { token: auditor });
    expect(answer.body.items).toEqual([expect.objectContaining({ event: 'admin.user.enabled', account_id: aliceId, actor: 'admin-machine' })]);
  });

  it('401 without a token or with a bad one', async () => {
    const missing = await get('', null);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(`Bearer realm="${server.issuer}/admin/v1"`);
    expect(missing.body).toMatchObject(problemOf(401, 'invalid_token', '/audit-events'));
    const bad = await get('', 'not.a.token');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe(`Bearer realm="${server.issuer}/admin/v1", error="invalid_token"`);
  });

  it('403 insufficient_scope with a token of another admin scope', async () => {
    const answer = await get('', await machineToken(server, 'admin:users:read'));
    expect(answer.status).toBe(403);
    expect(answer.headers.get('www-authenticate')).toBe(`Bearer realm="${server.issuer}/admin/v1", error="insufficient_scope", scope="admin:audit:read"`);
    expect(answer.body).toMatchObject({ ...problemOf(403, 'insufficient_scope', '/audit-events'), detail: 'This request needs the scope admin:audit:read.' });
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=201', 'limit'],
    ['?limit=ten', 'limit'],
    ['?after=bogus!', 'after', 'is not a cursor this server issued'],
    [`?after=${Buffer.from('12.x').toString('base64url')}`, 'after', 'is not a cursor this server issued'],
    ['?since=yesterday', 'since', 'must be an ISO 8601 time with a zone (2026-11-23T10:00:00Z) or a duration back from now (30m, 24h, 7d)'],
    ['?until=2026-11-23T10:00:00', 'until', 'must be an ISO 8601 time with a zone (2026-11-23T10:00:00Z) or a duration back from now (30m, 24h, 7d)'],
    ['?since=1h&until=2h', 'until', 'must be later than since'],
    ['?event=LOGIN', 'event', 'must be an event name (login.password.failure) or a prefix ending in "." (login.)'],
    ['?event=', 'event'],
    ['?user=%20', 'user', 'must be 1 to 256 characters'],
    ['?client=a&client=b', 'client', 'is given more than once'],
    ['?actor=cli', 'actor', 'is not a known field'],
  ])('400 validation_failed for %s naming %s', async (query, field, message?: string) => {
    const answer = await get(query);
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject(problemOf(400, 'validation_failed', '/audit-events'));
    expect(answer.body.errors).toEqual([{ field, message: message ?? expect.any(String) }]);
  });
});
