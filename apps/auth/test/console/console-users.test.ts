/**
 * The admin console's Users section and its write rules over HTTP, on SQLite and PostgreSQL:
 * search and pages, a user's page, create with a one-time reset link, edit, disable (the user's
 * session ends), enable, unlock, reset the second factors, sign out everywhere; every change
 * audited with the acting admin; CSRF refusal, cross-site refusal, read-only refusal, a stale
 * sign-in's post refused. Time moves only by the injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { captureLogger } from '../support/push.ts';
import { form, request, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';
import { consoleBrowser, csrfOf, signedInConsole } from './console-support.ts';

describe.each(TEST_ENGINES)('the admin console users section on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  const { logger, lines } = captureLogger();
  let nextIp = 1;
  const ip = () => `198.51.100.${nextIp++}`;

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, env: { TRUST_PROXY: 'true' }, logger });
  });
  afterAll(() => server.close());

  const idOf = async (username: string) => (await server.app.services.accounts.findByUsername(username))!.id;

  it('searches users and pages through them', async () => {
    const admin = await server.createUser({ groups: ['admins'] });
    const browser = await signedInConsole(server, admin, clock, ip());
    const prefix = `pager${engine}`;
    for (let i = 0; i < 27; i++) await server.createUser({ username: `${prefix}${String(i).padStart(2, '0')}` });
    const first = await browser.get(`/admin/users?q=${prefix}`);
    expect(first.status).toBe(200);
    expect(first.text).toContain('<a href="/admin/users" aria-current="page">Users</a>');
    expect(first.text.match(new RegExp(`>${prefix}\\d\\d</a>`, 'g'))).toHaveLength(25);
    const next = /<a href="([^"]+)" id="next-page">/.exec(first.text)![1]!.replaceAll('&amp;', '&');
    const second = await browser.get(next);
    expect(second.status).toBe(200);
    expect(second.text.match(new RegExp(`>${prefix}\\d\\d</a>`, 'g'))).toEqual([`>${prefix}25</a>`, `>${prefix}26</a>`]);
    expect(second.text).not.toContain('id="next-page"');
    expect(second.text).toContain(`<a href="/admin/users?q=${prefix}" id="first-page">First page</a>`);
    const bad = await browser.get('/admin/users?after=forged');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('<code>invalid_input</code>');
    const none = await browser.get('/admin/users?q=nobody-by-this-name');
    expect(none.text).toContain('No user matches this search.');
  });

  it('creates a user with a one-time reset link, audited with the acting admin', async () => {
    const admin = await server.createUser({ groups: ['admins'] });
    const browser = await signedInConsole(server, admin, clock, ip());
    const page = await browser.get('/admin/users/new');
    expect(page.status).toBe(200);
    const csrf = csrfOf(page.text);
    const username = `new-${engine}-user`;
    const created = await browser.post('/admin/users/new', { csrf, username, name: 'New <User>', email: `${username}@example.com`, groups: 'editors, testers editors' });
    expect(created.status).toBe(200);
    expect(created.text).toContain(`User ${username} was created.`);
    const link = /id="reset-link-url" class="secret-link" value="([^"]+)"/.exec(created.text)![1]!;
    expect(link).toMatch(new RegExp(`^${server.issuer}/account/password-reset/[A-Za-z0-9_-]{43}$`));
    const account = (await server.app.services.accounts.findByUsername(username))!;
    expect(account).toMatchObject({ name: 'New <User>', email: `${username}@example.com`, groups: ['editors', 'testers'] });
    // The link works: it shows the reset form for the new user.
    const resetPage = await request(consoleBrowser(server, ip()).jar, link);
    expect(resetPage.status).toBe(200);
    expect(resetPage.text).toContain(`<strong id="reset-username">${username}</strong>`);
    await server.app.flushAudit();
    expect(lines.filter((a) => a.event === 'admin.user.created' && a.account_id === account.id)).toEqual([
      expect.objectContaining({ actor_kind: 'account', actor: await idOf(admin.username), password_set: false }),
    ]);
    expect(lines.filter((a) => a.event === 'admin.user.reset_link_issued' && a.account_id === account.id)).toEqual([expect.objectContaining({ actor_kind: 'account', actor: await idOf(admin.username) })]);

    const again = await browser.post('/admin/users/new', { csrf, username, name: 'Again', email: `${username}@example.com`, groups: '' });
    expect(again.status).toBe(409);
    expect(again.text).toContain('<code>duplicate_username</code>');
    expect(again.text).toContain(`value="${username}"`);
  });

  it('disables a user, whose session ends, then enables them; each change shown and audited', async () => {
    const admin = await server.createUser({ groups: ['admins'] });
    const user = await server.createUser({ groups: ['editors'] });
    const userBrowser = consoleBrowser(server, ip());
    // The user signs in to their account page in their own browser.
    const start = await userBrowser.get('/account');
    const loginPage = await request(userBrowser.jar, start.location!);
    const uid = uidOf(loginPage.text);
    await request(userBrowser.jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) });
    clock.now += 31_000;
    const done = await request(userBrowser.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code: await server.app.services.totp.generate(user.totpSecret, clock.now) }) });
    await request(userBrowser.jar, done.location!);
    expect((await userBrowser.get('/account')).status).toBe(200);

    const browser = await signedInConsole(server, admin, clock, ip());
    const id = await idOf(user.username);
    const page = await browser.get(`/admin/users/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<dd id="user-groups">editors</dd>`);
    expect(page.text).toContain(`<a href="/admin/audit?account=${id}" id="user-audit">`);
    expect(page.text).toMatch(/<ul class="rows" id="session-list"><li><strong>Chrome on Linux<\/strong>/);
    const confirm = await browser.get(`/admin/users/${id}/disable`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(`<h1>Disable ${user.username}?</h1>`);
    expect(confirm.text).toContain('Every session of the account ends now');
    const disabled = await browser.post(`/admin/users/${id}/disable`, { csrf: csrfOf(confirm.text) });
    expect(disabled.status).toBe(303);
    expect(disabled.location).toBe(`/admin/users/${id}`);
    const after = await browser.get(`/admin/users/${id}`);
    expect(after.text).toContain(`<p class="notice" role="status" id="flash">${user.username} is disabled: 1 session and 1 grant ended.</p>`);
    expect(after.text).toContain('<span class="badge warn">disabled</span> since');
    // Shown once.
    expect((await browser.get(`/admin/users/${id}`)).text).not.toContain('id="flash"');
    // The user's session has ended: their account page sends them to sign in.
    expect((await userBrowser.get('/account')).status).toBe(302);

    const enabled = await browser.post(`/admin/users/${id}/enable`, { csrf: csrfOf(after.text) });
    expect(enabled.status).toBe(303);
    expect((await browser.get(`/admin/users/${id}`)).text).toContain(`${user.username} is enabled and may sign in again.`);
    await server.app.flushAudit();
    const adminId = await idOf(admin.username);
    expect(lines.filter((a) => a.account_id === id && (a.event === 'admin.user.disabled' || a.event === 'admin.user.enabled')).map((a) => [a.event, a.actor_kind, a.actor])).toEqual([
      ['admin.user.disabled', 'account', adminId],
      ['admin.user.enabled', 'account', adminId],
    ]);
  });

  it('unlocks a locked-out user, resets their second factors and signs them out everywhere', async () => {
    const admin = await server.createUser({ groups: ['admins'] });
    const user = await server.createUser({});
    const id = await idOf(user.username);
    for (let i = 0; i < 30; i++) await server.app.services.regulationStore.recordFailure(`account:${user.username}`, clock.now - 1000 + i);
    const browser = await signedInConsole(server, admin, clock, ip());
    const dashboard = await browser.get('/admin');
    expect(dashboard.text).toContain(`<a href="/admin/users?q=${user.username}">${user.username}</a>`);
    await server.app.services.consents.allow(id, server.testClient.clientId, { scopes: ['openid', 'profile'] });
    const page = await browser.get(`/admin/users/${id}`);
    expect(page.text).toContain('<span class="badge warn">locked out</span> until');
    expect(page.text).toMatch(new RegExp(`<ul class="rows" id="consent-list"><li><strong><a href="/admin/clients/${server.testClient.clientId}">[^<]+</a></strong> <span class="muted">allowed <time datetime="[^"]+" data-local="datetime">[^<]+</time></span><br><span class="muted">openid profile</span></li></ul>`));
    const csrf = csrfOf(page.text);
    const unlocked = await browser.post(`/admin/users/${id}/unlock`, { csrf });
    expect(unlocked.status).toBe(303);
    const after = await browser.get(`/admin/users/${id}`);
    expect(after.text).toContain(`${user.username} is unlocked: 30 recorded failures were cleared.`);
    expect(after.text).toContain('<dd id="user-lockout">not locked out</dd>');
    expect(after.text).toContain('<dd id="factor-totp">set up</dd>');

    const confirm = await browser.get(`/admin/users/${id}/second-factors/reset`);
    expect(confirm.text).toContain(`<h1>Reset the second factors of ${user.username}?</h1>`);
    const reset = await browser.post(`/admin/users/${id}/second-factors/reset`, { csrf });
    expect(reset.status).toBe(303);
    const resetPage = await browser.get(`/admin/users/${id}`);
    expect(resetPage.text).toContain(`The second factors of ${user.username} were reset (removed the authenticator app); 0 sessions ended.`);
    expect(resetPage.text).toContain('<dd id="factor-totp">not set up</dd>');

    const signedOut = await browser.post(`/admin/users/${id}/sign-out`, { csrf });
    expect(signedOut.status).toBe(303);
    expect(signedOut.location).toBe(`/admin/users/${id}#sessions`);
    await server.app.flushAudit();
    const adminId = await idOf(admin.username);
    expect(lines.filter((a) => a.account_id === id && String(a.event).startsWith('admin.user.')).map((a) => [a.event, a.actor])).toEqual([
      ['admin.user.unlocked', adminId],
      ['admin.user.second_factors_reset', adminId],
      ['admin.user.signed_out', adminId],
    ]);
  });

  it('removes a user after a confirmation, audited with the acting admin; the page of the removed user is 404', async () => {
    const admin = await server.createUser({ groups: ['admins'] });
    const user = await server.createUser({});
    const id = await idOf(user.username);
    const browser = await signedInConsole(server, admin, clock, ip());
    const confirm = await browser.get(`/admin/users/${id}/remove`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(`<h1>Remove ${user.username}?</h1>`);
    expect(confirm.text).toContain('this cannot be undone');
    const removed = await browser.post(`/admin/users/${id}/remove`, { csrf: csrfOf(confirm.text) });
    expect(removed.status).toBe(303);
    expect(removed.location).toBe('/admin/users');
    expect((await browser.get('/admin/users')).text).toContain(`${user.username} was removed: 0 sessions and 0 grants ended.`);
    expect(await server.app.services.accounts.findById(id)).toBeUndefined();
    const gone = await browser.get(`/admin/users/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.text).toContain('<code>unknown_user</code>');
    expect(gone.text).toContain('<a href="/admin/users">Go back</a>');
    await server.app.flushAudit();
    expect(lines.filter((a) => a.event === 'admin.user.removed' && a.account_id === id).map((a) => a.actor)).toEqual([await idOf(admin.username)]);
  });

  it('edits the profile and groups, and shows a refused edit in the form', async () => {
    const admin = await server.createUser({ groups: ['admins'] });
    const user = await server.createUser({ groups: ['editors'] });
    const id = await idOf(user.username);
    const browser = await signedInConsole(server, admin, clock, ip());
    const form = await browser.get(`/admin/users/${id}/edit`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('id="groups" name="groups" value="editors"');
    const csrf = csrfOf(form.text);
    const saved = await browser.post(`/admin/users/${id}/edit`, { csrf, name: 'Grace Hopper', email: 'grace@example.com', groups: 'auditors' });
    expect(saved.status).toBe(303);
    expect((await browser.get(`/admin/users/${id}`)).text).toContain(`The profile and groups of ${user.username} were saved.`);
    expect(await server.app.services.accounts.findById(id)).toMatchObject({ name: 'Grace Hopper', email: 'grace@example.com', groups: ['auditors'] });
    const refused = await browser.post(`/admin/users/${id}/edit`, { csrf, name: 'Grace Hopper', email: 'not an email', groups: '' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('<code>invalid_input</code>');
    expect(refused.text).toContain('value="not an email"');
  });

  it('refuses a post without the CSRF token, with another session\'s token, or from another site; nothing changes', async () => {
    const admin = await server.createUser({ groups: ['admins'] });
    const other = await server.createUser({ groups: ['admins'] });
    const user = await server.createUser({});
    const id = await idOf(user.username);
    const browser = await signedInConsole(server, admin, clock, ip());
    const otherBrowser = await signedInConsole(server, other, clock, ip());
    const otherCsrf = csrfOf((await otherBrowser.get(`/admin/users/${id}`)).text);
    for (const fields of [{}, { csrf: '' }, { csrf: otherCsrf }, { csrf: 'forged' }] as Record<string, string>[]) {
      const refused = await browser.post(`/admin/users/${id}/disable`, fields);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('<code>csrf_refused</code>');
      expect(refused.text).toContain('This form did not come from your admin console page, so nothing was changed.');
    }
    const csrf = csrfOf((await browser.get(`/admin/users/${id}`)).text);
    const crossSite = await browser.post(`/admin/users/${id}/disable`, { csrf }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect((await server.app.services.accounts.findById(id))!.disabledAt).toBeNull();
  });

  it('lets an auditor read every user page but hides the write controls and refuses their posts with 403', async () => {
    const auditor = await server.createUser({ groups: ['auditors'] });
    const user = await server.createUser({});
    const id = await idOf(user.username);
    const browser = await signedInConsole(server, auditor, clock, ip());
    const page = await browser.get(`/admin/users/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<form method="post" action="/admin');
    expect(page.text).not.toContain('id="disable-user"');
    expect(page.text).not.toContain('id="edit-user"');
    expect((await browser.get('/admin/users')).text).not.toContain('id="new-user"');
    for (const path of ['/admin/users/new', `/admin/users/${id}/disable`, `/admin/users/${id}/edit`]) {
      const refused = await browser.get(path);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('<code>read_only</code>');
    }
    // No page gives an auditor a form; the read-only refusal comes before the token is even read.
    expect(page.text).not.toContain('name="csrf"');
    const post = await browser.post(`/admin/users/${id}/disable`, { csrf: 'any' });
    expect(post.status).toBe(403);
    expect(post.text).toContain('<code>read_only</code>');
    expect((await server.app.services.accounts.findById(id))!.disabledAt).toBeNull();
  });

  it('refuses the post of a stale sign-in with a page offering a new sign-in, and a non-admin\'s with 403', async () => {
    const admin = await server.createUser({ groups: ['admins'] });
    const user = await server.createUser({});
    const id = await idOf(user.username);
    const browser = await signedInConsole(server, admin, clock, ip());
    const csrf = csrfOf((await browser.get(`/admin/users/${id}`)).text);
    clock.now += 601_000;
    const stale = await browser.post(`/admin/users/${id}/unlock`, { csrf });
    expect(stale.status).toBe(401);
    expect(stale.text).toContain('<h1>Sign in again to continue</h1>');
    expect(stale.text).toContain('prompt=login');
    const nobody = consoleBrowser(server, ip());
    const anonymous = await nobody.post(`/admin/users/${id}/unlock`, { csrf });
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).toContain('<h1>Sign in to the admin console</h1>');
    await server.app.flushAudit();
    expect(lines.filter((a) => a.event === 'admin.user.unlocked' && a.account_id === id)).toEqual([]);
  });
});
