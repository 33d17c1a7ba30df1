/**
 * The console's Audit trail section over HTTP on SQLite and PostgreSQL: authctl's filters (user,
 * client, event, since, until) as query parameters, an account id from a user's page, paging
 * that keeps the filters, links from each event to its user and client, and a refused filter
 * shown above the form. A read-only auditor reads it too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDateTime } from '@gatehouse/html/i18n';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import type { AuditRecord } from '../../src/audit/audit-event-store.ts';
import { startServer, type TestAuthServer, type TestUser } from '../support/flow.ts';
import { signedInConsole, type ConsoleBrowser } from './console-support.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');

const event = (at: number, name: string, fields: Partial<AuditRecord> = {}): AuditRecord => ({
  occurredAt: at,
  event: name,
  accountId: null,
  username: null,
  clientId: null,
  actorKind: null,
  actor: null,
  ip: '203.0.113.9',
  fields: {},
  ...fields,
});

const rowsOf = (html: string): string[] => [...html.matchAll(/<tr data-event="([^"]+)">/g)].map((m) => m[1]!);

describe.each(TEST_ENGINES)('admin console audit trail on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: T0 + 7 * 86_400_000 };
  let nextIp = 1;
  const ip = () => `198.51.100.${nextIp++}`;
  let browser: ConsoleBrowser;
  let alice: TestUser;
  let aliceId: string;

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, env: { TRUST_PROXY: 'true' } });
    alice = await server.createUser({ username: 'alice-audit' });
    aliceId = (await server.app.services.accounts.findByUsername(alice.username))!.id;
    // 55 events of alice at test-app an hour apart, and two others, days before the admins sign in.
    const records = Array.from({ length: 55 }, (_, i) => event(T0 + i * 3_600_000, i % 2 ? 'login.password.success' : 'token.issued', { accountId: aliceId, clientId: 'test-app', fields: { n: i } }));
    records.push(event(T0 - 86_400_000, 'login.password.failure', { username: 'nobody-typed', fields: { reason: 'unknown_user' } }));
    records.push(event(T0 - 86_400_000 + 1, 'admin.client.updated', { clientId: 'api', actorKind: 'operator', actor: 'cli', fields: { fields: 'name' } }));
    await server.app.services.auditEvents.append(records);
    browser = await signedInConsole(server, await server.createUser({ groups: ['admins'] }), clock, ip());
  });
  afterAll(() => server.close());

  it('filters by user, client, event and time, as authctl audit does, and keeps the values in the form', async () => {
    const page = await browser.get('/admin/audit?user=alice-audit&client=test-app&event=token.&since=2026-11-21T00:00:00Z&until=2026-11-21T06:00:00Z');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<a href="/admin/audit" aria-current="page">Audit trail</a>');
    expect(rowsOf(page.text)).toEqual(['token.issued', 'token.issued', 'token.issued']);
    expect(page.text).toContain(`<td><time datetime="2026-11-21T04:00:00.000Z" data-local="datetime">${formatDateTime(Date.parse('2026-11-21T04:00:00Z'), 'en')}</time></td>`);
    expect(page.text).toContain('<input id="filter-user" name="user" value="alice-audit"');
    expect(page.text).toContain('<input id="filter-since" name="since" value="2026-11-21T00:00:00Z"');
    expect(page.text).toContain(`<td><a href="/admin/users/${aliceId}">alice-audit</a></td>`);
    expect(page.text).toContain('<td><a href="/admin/clients/test-app">test-app</a></td>');

    const typed = await browser.get('/admin/audit?user=nobody-typed');
    expect(rowsOf(typed.text)).toEqual(['login.password.failure']);
    expect(typed.text).toContain('<span title="typed username, no account">nobody-typed</span>');
    const byAccount = await browser.get(`/admin/audit?account=${aliceId}&event=login.password.success&since=7d`);
    expect(rowsOf(byAccount.text)).toHaveLength(27);
    expect(byAccount.text).toContain('<p id="account-filter">Showing the events of account <code>alice-audit</code>.</p>');
    const operator = await browser.get('/admin/audit?client=api&event=admin.client.updated');
    expect(operator.text).toContain('<td>operator cli</td>');
    const none = await browser.get('/admin/audit?client=nobody');
    expect(none.text).toContain('<p id="no-events">No audit events match these filters.</p>');
  });

  it('pages newest first, 50 at a time; the next page keeps the filters', async () => {
    const first = await browser.get('/admin/audit?client=test-app');
    expect(rowsOf(first.text)).toHaveLength(50);
    expect(first.text).toContain('<td class="fields">n=54</td>');
    const next = /<a href="([^"]+)" rel="next" id="next-page">Older events<\/a>/.exec(first.text)![1]!.replaceAll('&amp;', '&');
    expect(next).toMatch(/^\/admin\/audit\?client=test-app&after=[A-Za-z0-9_-]+$/);
    const second = await browser.get(next);
    expect(rowsOf(second.text)).toHaveLength(5);
    expect(second.text).toContain('<td class="fields">n=0</td>');
    expect(second.text).not.toContain('id="next-page"');
  });

  it('shows a refused filter above the form, as typed, and searches nothing', async () => {
    for (const [query, message] of [
      ['since=yesterday', 'since must be an ISO 8601 time with a zone (2026-11-23T10:00:00Z) or a duration back from now (30m, 24h, 7d)'],
      ['since=2026-11-22T00:00:00Z&until=2026-11-21T00:00:00Z', 'until must be later than since'],
      ['event=Login%20failed', 'event must be an event name (login.password.failure) or a prefix ending in &quot;.&quot; (login.)'],
      ['after=not-a-cursor', 'after is not a cursor this server issued'],
    ] as const) {
      const page = await browser.get(`/admin/audit?${query}`);
      expect(page.status).toBe(400);
      expect(page.text).toContain(`<div class="error" role="alert" id="filter-error"><p>${message}</p>`);
      expect(page.text).toContain('<p id="no-events">Nothing was searched: correct the filter above.</p>');
    }
    expect((await browser.get('/admin/audit?since=yesterday')).text).toContain('<input id="filter-since" name="since" value="yesterday"');
  });

  it('a read-only auditor reads the trail, and sees the admin named in the events of the console', async () => {
    const auditor = await signedInConsole(server, await server.createUser({ groups: ['auditors'] }), clock, ip());
    const page = await auditor.get('/admin/audit?user=alice-audit');
    expect(page.status).toBe(200);
    expect(rowsOf(page.text)).toHaveLength(50);
  });
});
