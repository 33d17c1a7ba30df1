/**
 * The console's Clients section over HTTP on SQLite and PostgreSQL: the list, registering a client
 * (its secret shown once, and it authenticates), a refused registration shown in its form, saving
 * the registration and the allowed scopes, rotating the secret with a grace period and removing
 * the client after a confirmation page; every change is in the audit trail naming the admin.
 * Refusals: a post without or with another session's CSRF token, and a read-only auditor, change
 * nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDateTime } from '@gatehouse/html/i18n';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { basic, startServer, type TestAuthServer, type TestUser } from '../support/flow.ts';
import { csrfOf, signedInConsole, type ConsoleBrowser } from './console-support.ts';

const SECRET = /<code id="client-secret">([A-Za-z0-9_-]{43})<\/code>/;

describe.each(TEST_ENGINES)('admin console clients on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  let nextIp = 1;
  const ip = () => `198.51.100.${nextIp++}`;
  let admin: TestUser;
  let browser: ConsoleBrowser;
  let csrf: string;

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, env: { TRUST_PROXY: 'true' }, apiScopes: ['movies:read', 'movies:write'] });
    admin = await server.createUser({ groups: ['admins'] });
    browser = await signedInConsole(server, admin, clock, ip());
    csrf = csrfOf((await browser.get('/admin/clients/new')).text);
  });
  afterAll(() => server.close());

  /** Whether the secret authenticates the client at the token endpoint (a bad code, not a bad client, is the refusal). */
  async function authenticates(clientId: string, secret: string, method: 'basic' | 'post' = 'basic'): Promise<boolean> {
    const params = new URLSearchParams({ grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: 'https://console.example/cb' });
    if (method === 'post') {
      params.set('client_id', clientId);
      params.set('client_secret', secret);
    }
    const response = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { ...(method === 'basic' ? { authorization: basic(clientId, secret) } : {}), 'content-type': 'application/x-www-form-urlencoded' },
      body: params,
    });
    const body = (await response.json()) as { error: string };
    if (body.error === 'invalid_client') return false;
    expect(body.error).toBe('invalid_grant');
    return true;
  }

  it('lists the clients, with a link to each and to the registration form', async () => {
    const page = await browser.get('/admin/clients');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.text).toContain('<h1>Clients</h1>');
    expect(page.text).toContain('<a href="/admin/clients" aria-current="page">Clients</a>');
    expect(page.text).toContain('<th scope="row"><a href="/admin/clients/api">api</a></th>');
    expect(page.text).toContain('<th scope="row"><a href="/admin/clients/test-app">test-app</a></th>');
    expect(page.text).toContain('<a class="button" href="/admin/clients/new" id="new-client">Register a client</a>');
    const form = await browser.get('/admin/clients/new');
    expect(form.status).toBe(200);
    expect(form.text).toContain('<form method="post" action="/admin/clients" id="new-client-form">');
    expect(form.text).toContain(`<input type="hidden" name="csrf" value="${csrf}">`);
  });

  it('registers a client and shows its secret once; the secret authenticates it; the admin is named in the audit trail', async () => {
    const created = await browser.post('/admin/clients', {
      csrf,
      client_id: 'console-app',
      name: 'Console App',
      type: 'confidential',
      auth_method: 'client_secret_basic',
      logo_uri: 'https://console.example/logo.png',
      redirect_uris: 'https://console.example/cb\r\n\r\n  https://console.example/other  ',
      post_logout_redirect_uris: 'https://console.example/bye',
      'grant.authorization_code': 'on',
      'grant.refresh_token': 'on',
      first_party: 'on',
    });
    expect(created.status).toBe(201);
    expect(created.text).toContain('<p class="notice" role="status" id="flash">Client console-app is registered.</p>');
    expect(created.text).toContain('<script src="/static/console-copy.js" defer></script>');
    expect(created.text).toContain('<button type="button" class="secondary" id="copy-secret" data-copy="client-secret" hidden>Copy the secret</button>');
    const secret = SECRET.exec(created.text)![1]!;
    expect(await authenticates('console-app', secret)).toBe(true);

    const detail = await browser.get('/admin/clients/console-app');
    expect(detail.status).toBe(200);
    expect(detail.text).not.toContain(secret);
    expect(detail.text).toContain('<dd id="detail-name">Console App</dd>');
    expect(detail.text).toContain('<dd id="detail-logo">https://console.example/logo.png</dd>');
    expect(detail.text).toContain('<dd id="detail-redirects"><code>https://console.example/cb</code> <code>https://console.example/other</code> </dd>');
    expect(detail.text).toContain('<dd id="detail-post-logout"><code>https://console.example/bye</code> </dd>');
    expect(detail.text).toContain('<dd id="detail-grants">authorization_code, refresh_token</dd>');
    expect(detail.text).toContain('<dd id="detail-first-party">yes</dd>');
    expect(detail.text).toContain('<dd id="detail-scopes">any API scope</dd>');

    const trail = await browser.get('/admin/audit?client=console-app');
    expect(trail.text).toContain('<td><code>admin.client.created</code></td>');
    expect(trail.text).toContain(`admin <a href="/admin/users/${encodeURIComponent((await server.app.services.accounts.findByUsername(admin.username))!.id)}">${admin.username}</a>`);
  });

  it('shows a refused registration in its form, as typed, with the message and field', async () => {
    const duplicate = await browser.post('/admin/clients', { csrf, client_id: 'console-app', name: 'Again', type: 'confidential', redirect_uris: 'https://again.example/cb', 'grant.authorization_code': 'on' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.text).toContain('<code>duplicate_client</code>');
    expect(duplicate.text).toContain('value="Again"');
    const badUri = await browser.post('/admin/clients', { csrf, client_id: 'bad-app', type: 'confidential', redirect_uris: 'http://bad.example/cb#frag', 'grant.authorization_code': 'on' });
    expect(badUri.status).toBe(400);
    expect(badUri.text).toContain('<div class="error" role="alert" id="client-error">');
    expect(badUri.text).toContain('field <code>redirect_uris</code>');
    expect(badUri.text).toContain('http://bad.example/cb#frag</textarea>');
    await expect(server.app.services.clients.find('bad-app')).resolves.toBeUndefined();
  });

  it('saves the registration (only what changed is audited), and says so when nothing changed', async () => {
    const current = await browser.get('/admin/clients/console-app');
    expect(current.text).toContain('<form method="post" action="/admin/clients/console-app" id="edit-client-form">');
    const fields = {
      csrf,
      name: 'Console App 2',
      logo_uri: '',
      redirect_uris: 'https://console.example/cb',
      post_logout_redirect_uris: 'https://console.example/bye',
      auth_method: 'client_secret_post',
      'grant.authorization_code': 'on',
      'grant.refresh_token': 'on',
      first_party: 'on',
    };
    const saved = await browser.post('/admin/clients/console-app', fields);
    expect(saved.status).toBe(303);
    expect(saved.location).toBe('/admin/clients/console-app');
    const page = await browser.get('/admin/clients/console-app');
    expect(page.text).toContain('<p class="notice" role="status" id="flash">The registration of console-app is saved.</p>');
    expect(page.text).toContain('<dd id="detail-name">Console App 2</dd>');
    expect(page.text).toContain('<dd id="detail-logo">none</dd>');
    expect(page.text).toContain('<dd id="detail-auth"><code>client_secret_post</code></dd>');
    expect(page.text).toContain('<dd id="detail-redirects"><code>https://console.example/cb</code> </dd>');
    const trail = await browser.get('/admin/audit?event=admin.client.updated');
    expect(trail.text).toContain('fields=redirect_uris,name,token_endpoint_auth_method,logo_uri');

    const again = await browser.post('/admin/clients/console-app', fields);
    expect(again.status).toBe(303);
    expect((await browser.get('/admin/clients/console-app')).text).toContain('Nothing changed: the registration already had these values.');

    const refused = await browser.post('/admin/clients/console-app', { ...fields, redirect_uris: 'ftp://console.example/cb' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('<div class="error" role="alert" id="registration-error">');
    expect(refused.text).toContain('ftp://console.example/cb</textarea>');
  });

  it("saves the client's allowed scopes, admin scopes included, and lifts the limit", async () => {
    const limited = await browser.post('/admin/clients/console-app/scopes', { csrf, scopes: 'list', 'scope.movies:read': 'on', 'scope.admin:keys': 'on' });
    expect(limited.status).toBe(303);
    expect(limited.location).toBe('/admin/clients/console-app#scopes-heading');
    expect(await server.app.services.scopePolicies.clientScopes('console-app')).toEqual(['movies:read', 'admin:keys']);
    const page = await browser.get('/admin/clients/console-app');
    expect(page.text).toContain('console-app may request: movies:read admin:keys.');
    expect(page.text).toContain('<dd id="detail-scopes">movies:read admin:keys</dd>');
    const empty = await browser.post('/admin/clients/console-app/scopes', { csrf, scopes: 'list' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('<div class="error" role="alert" id="scopes-error"><p>name at least one API scope (or allow any)</p>');
    expect((await browser.post('/admin/clients/console-app/scopes', { csrf, scopes: 'any' })).status).toBe(303);
    expect(await server.app.services.scopePolicies.clientScopes('console-app')).toBeNull();
  });

  it('rotates the secret after a confirmation page; the old one works for the grace period', async () => {
    const before = (await server.app.services.clients.find('console-app'))!.clientSecret!;
    const confirm = await browser.get('/admin/clients/console-app/rotate?grace=3600');
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Give console-app a new secret, shown once on the next page.');
    expect(confirm.text).toContain('Keep the current secret working for 1 hour, then end it.');
    expect(confirm.text).toContain('<input type="hidden" name="grace" value="3600">');
    expect((await browser.get('/admin/clients/console-app/rotate?grace=5')).status).toBe(400);
    const rotated = await browser.post('/admin/clients/console-app/rotate', { csrf, grace: '3600' });
    expect(rotated.status).toBe(200);
    const secret = SECRET.exec(rotated.text)![1]!;
    expect(secret).not.toBe(before);
    const until = clock.now + 3_600_000;
    expect(rotated.text).toContain(`<p id="previous-expires">The replaced secret keeps working until <time datetime="${new Date(until).toISOString()}" data-local="datetime">${formatDateTime(until, 'en')}</time>.</p>`);
    expect(await authenticates('console-app', secret, 'post')).toBe(true);
    expect(await authenticates('console-app', before, 'post')).toBe(true);
    expect(await authenticates('console-app', 'not-the-secret-at-all', 'post')).toBe(false);
    expect((await browser.post('/admin/clients/console-app/rotate', { csrf, grace: '17' })).status).toBe(400);
  });

  it('refuses a post without the CSRF token or with another session\'s, and changes nothing', async () => {
    const other = await signedInConsole(server, await server.createUser({ groups: ['admins'] }), clock, ip());
    const otherCsrf = csrfOf((await other.get('/admin/clients/new')).text);
    for (const token of [undefined, otherCsrf, 'forged']) {
      const refused = await browser.post('/admin/clients/console-app/remove', token === undefined ? {} : { csrf: token });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('<code>csrf_refused</code>');
    }
    expect(await server.app.services.clients.find('console-app')).toBeDefined();
  });

  it('a read-only auditor sees the clients and no form, and its posts change nothing', async () => {
    const auditor = await signedInConsole(server, await server.createUser({ groups: ['auditors'] }), clock, ip());
    const list = await auditor.get('/admin/clients');
    expect(list.status).toBe(200);
    expect(list.text).toContain('<th scope="row"><a href="/admin/clients/console-app">console-app</a></th>');
    expect(list.text).not.toContain('id="new-client"');
    const detail = await auditor.get('/admin/clients/console-app');
    expect(detail.text).toContain('<p class="muted" id="read-only-note">');
    expect(detail.text).not.toContain('<form method="post" action="/admin');
    expect((await auditor.get('/admin/clients/new')).status).toBe(403);
    expect((await auditor.get('/admin/clients/console-app/remove')).status).toBe(403);
    for (const [path, fields] of [
      ['/admin/clients', { client_id: 'sneaky', type: 'public', redirect_uris: 'https://s.example/cb', 'grant.authorization_code': 'on' }],
      ['/admin/clients/console-app/rotate', { grace: '0' }],
      ['/admin/clients/console-app/remove', {}],
    ] as const) {
      const refused = await auditor.post(path, { csrf: 'read-only-is-refused-first', ...fields });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('<code>read_only</code>');
    }
    expect(await server.app.services.clients.find('sneaky')).toBeUndefined();
    expect(await server.app.services.clients.find('console-app')).toBeDefined();
  });

  it('removes the client after a confirmation page saying what it does', async () => {
    const confirm = await browser.get('/admin/clients/console-app/remove');
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('<h1>Remove the client Console App 2?</h1>');
    expect(confirm.text).toContain('End its access and refresh tokens at once, and its secrets stop working.');
    expect(confirm.text).toContain('<form method="post" action="/admin/clients/console-app/remove">');
    const removed = await browser.post('/admin/clients/console-app/remove', { csrf });
    expect(removed.status).toBe(303);
    expect(removed.location).toBe('/admin/clients');
    const list = await browser.get('/admin/clients');
    expect(list.text).toContain('<p class="notice" role="status" id="flash">Client console-app is removed.</p>');
    expect(list.text).not.toContain('/admin/clients/console-app"');
    expect(await server.app.services.clients.find('console-app')).toBeUndefined();
    const gone = await browser.get('/admin/clients/console-app');
    expect(gone.status).toBe(404);
    expect(gone.text).toContain('<code>unknown_client</code>');
    expect((await browser.get('/admin/audit?event=admin.client.removed')).text).toContain('<td><code>admin.client.removed</code></td>');
  });
});
