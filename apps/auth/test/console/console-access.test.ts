/**
 * Who gets into the admin console (/admin), over HTTP on SQLite and PostgreSQL: the sign-in that
 * comes back to the page asked for, the 403 page of a non-admin, a stale sign-in sent through the
 * login again, the read-only auditors. Time moves only by the injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { request, startServer, type TestAuthServer } from '../support/flow.ts';
import { completeSignIn, consoleBrowser, signedInConsole } from './console-support.ts';

describe.each(TEST_ENGINES)('admin console access on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  let nextIp = 1;
  const ip = () => `198.51.100.${nextIp++}`;

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => server.close());

  it('sends a browser without a session through the login (max_age) and back to the page it asked for', async () => {
    const admin = await server.createUser({ groups: ['admins'] });
    const browser = consoleBrowser(server, ip());
    const start = await browser.get('/admin');
    expect(start.status).toBe(302);
    const authorize = new URL(start.location!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${server.issuer}/oauth2/v1/authorize`);
    expect(Object.fromEntries(authorize.searchParams)).toEqual({
      client_id: 'gatehouse-account',
      response_type: 'none',
      scope: 'openid',
      redirect_uri: `${server.issuer}/admin/callback`,
      max_age: '600',
      state: '/admin',
    });
    expect(await completeSignIn(server, browser, admin, start.location!, clock)).toBe('/admin');
    const page = await browser.get('/admin');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain('<h1>Dashboard</h1>');
    expect(page.text).toContain(`<strong id="console-user">${admin.username}</strong> (<span id="console-role">administrator</span>)`);
    expect(page.text).toContain('<a href="/admin" aria-current="page">Dashboard</a>');
    expect(page.text).not.toContain('readonly-banner');
  });

  it('only follows a return path inside the console after the sign-in', async () => {
    const browser = consoleBrowser(server, ip());
    for (const [state, to] of [
      ['/admin?tab=1', '/admin?tab=1'],
      ['https://evil.example/admin', '/admin'],
      ['//evil.example/admin', '/admin'],
      ['/admin//evil.example', '/admin'],
      ['/account', '/admin'],
      ['/administrator', '/admin'],
    ] as const) {
      const callback = await browser.get(`/admin/callback?state=${encodeURIComponent(state)}`);
      expect(callback.status).toBe(303);
      expect(callback.location).toBe(to);
    }
    const refused = await browser.get('/admin/callback?error=access_denied&state=%2Fadmin');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('<h1>Sign-in not completed</h1>');
    expect(refused.text).toContain('<a href="/admin">Try signing in to the admin console again</a>');
  });

  it('answers a signed-in user outside the admin groups with a 403 page offering the way on', async () => {
    const user = await server.createUser({ groups: ['editors'] });
    const browser = consoleBrowser(server, ip());
    const start = await browser.get('/admin');
    await completeSignIn(server, browser, user, start.location!, clock);
    const page = await browser.get('/admin');
    expect(page.status).toBe(403);
    expect(page.text).toContain('<h1>You do not have access to the admin console</h1>');
    expect(page.text).toContain(`You are signed in as ${user.username}, and this account is not an administrator.`);
    expect(page.text).toContain('<a href="/account">Go to your account page</a>');
    expect(page.text).toContain('<a href="/oauth2/v1/logout">Sign out and sign in as someone else</a>');
    expect(page.text).toContain('<code>forbidden</code>');
  });

  it('sends a sign-in older than AUTH_ADMIN_CONSOLE_MAX_AGE through the login again, then lets the admin in', async () => {
    const admin = await server.createUser({ groups: ['admins'] });
    const browser = await signedInConsole(server, admin, clock, ip());
    expect((await browser.get('/admin')).status).toBe(200);
    clock.now += 600_000 - 31_000;
    expect((await browser.get('/admin')).status).toBe(200);
    clock.now += 31_001;
    const stale = await browser.get('/admin?from=stale');
    expect(stale.status).toBe(302);
    const authorize = new URL(stale.location!);
    expect(authorize.searchParams.get('prompt')).toBe('login');
    expect(authorize.searchParams.get('max_age')).toBe('600');
    expect(authorize.searchParams.get('state')).toBe('/admin?from=stale');
    expect(await completeSignIn(server, browser, admin, stale.location!, clock)).toBe('/admin?from=stale');
    expect((await browser.get('/admin')).status).toBe(200);
  });

  it('lets a member of auditors read the console, marked read-only', async () => {
    const auditor = await server.createUser({ groups: ['auditors'] });
    const browser = await signedInConsole(server, auditor, clock, ip());
    const page = await browser.get('/admin');
    expect(page.status).toBe(200);
    expect(page.text).toContain('(<span id="console-role">read-only auditor</span>)');
    expect(page.text).toContain('Read-only access: you can see everything here and change nothing.');
  });

  it('shows the last 24 hours on the dashboard', async () => {
    const admin = await server.createUser({ groups: ['admins'] });
    const browser = await signedInConsole(server, admin, clock, ip());
    const wrong = consoleBrowser(server, ip());
    const start = await wrong.get('/admin');
    const loginPage = await request(wrong.jar, start.location!);
    const uid = /name="uid" value="([^"]+)"/.exec(loginPage.text)![1]!;
    const before = await server.app.services.auditEvents.countSince(['login.password.failure'], clock.now - 86_400_000);
    const refused = await request(wrong.jar, `${server.issuer}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ uid, username: admin.username, password: 'not the password at all' }).toString() });
    expect(refused.status).toBe(401);
    const page = await browser.get('/admin');
    expect(page.status).toBe(200);
    await server.app.flushAudit();
    const after = await server.app.services.auditEvents.countSince(['login.password.failure'], clock.now - 86_400_000);
    expect(after['login.password.failure']).toBe(before['login.password.failure']! + 1);
    expect(page.text).toMatch(/<dd id="stat-failures"><a href="\/admin\/audit\?event=login\.">\d+<\/a><\/dd>/);
    expect(page.text).toContain('<dd id="pending-migrations">none, the database schema is current</dd>');
    expect(page.text).toMatch(/<dd id="server-version">\d+\.\d+\.\d+/);
    expect(page.text).toMatch(/<td>active<\/td><td>RS256<\/td><td>(less than a minute|\d+ minutes?)<\/td>/);
    // One more signed-in browser is one more active session.
    const sessions = (html: string) => Number(/<dd id="stat-sessions">(\d+)<\/dd>/.exec(html)![1]);
    const before24 = sessions(page.text);
    await signedInConsole(server, await server.createUser({ groups: ['admins'] }), clock, ip());
    expect(sessions((await browser.get('/admin')).text)).toBe(before24 + 1);
  });
});
