/**
 * The console's Scope policies and Signing keys sections over HTTP on SQLite and PostgreSQL:
 * setting and lifting a scope's policy (a refused one shown in its form), rotating the signing key
 * after a confirmation page (the new key is in the JWKS at once); each change audited naming the
 * admin. A read-only auditor sees both pages without their forms and its posts change nothing;
 * a post without the CSRF token changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { startServer, type TestAuthServer } from '../support/flow.ts';
import { csrfOf, signedInConsole, type ConsoleBrowser } from './console-support.ts';

describe.each(TEST_ENGINES)('admin console scope policies and signing keys on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  let nextIp = 1;
  const ip = () => `198.51.100.${nextIp++}`;
  let browser: ConsoleBrowser;
  let auditor: ConsoleBrowser;
  let csrf: string;

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, env: { TRUST_PROXY: 'true' }, apiScopes: ['movies:read', 'movies:write'] });
    browser = await signedInConsole(server, await server.createUser({ groups: ['admins'] }), clock, ip());
    auditor = await signedInConsole(server, await server.createUser({ groups: ['auditors'] }), clock, ip());
    csrf = csrfOf((await browser.get('/admin/scopes')).text);
  });
  afterAll(() => server.close());

  it('lists every API scope, open to every user until restricted', async () => {
    const page = await browser.get('/admin/scopes');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Scope policies</h1>');
    expect(page.text).toContain('<a href="/admin/scopes" aria-current="page">Scope policies</a>');
    expect(page.text).toContain('<tr id="policy-movies-read">\n<th scope="row"><code>movies:read</code></th>\n<td><span class="muted">every user</span></td>');
    expect(page.text).toContain('<form method="post" action="/admin/scopes" id="policy-form">');
  });

  it('restricts a scope to groups, shows a refused policy in its form, and lifts it after a confirmation page', async () => {
    const saved = await browser.post('/admin/scopes', { csrf, scope: 'movies:write', groups: 'editors, admins,' });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe('/admin/scopes');
    const page = await browser.get('/admin/scopes');
    expect(page.text).toContain('<p class="notice" role="status" id="flash">movies:write is granted only to users in: editors, admins.</p>');
    expect(page.text).toContain('<th scope="row"><code>movies:write</code></th>\n<td>editors, admins</td>');
    expect(await server.app.services.scopePolicies.list()).toEqual([{ scope: 'movies:write', groups: ['editors', 'admins'], updatedAt: clock.now }]);

    const refused = await browser.post('/admin/scopes', { csrf, scope: 'movies:read', groups: 'two words' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('<div class="error" role="alert" id="policy-error"><p>group &quot;two words&quot; must be 1-64 characters without spaces or commas</p>');
    expect(refused.text).toContain('value="two words"');
    expect(refused.text).toContain('<option value="movies:read" selected>movies:read</option>');
    expect((await browser.post('/admin/scopes', { csrf, scope: 'movies:delete', groups: 'editors' })).status).toBe(400);

    const confirm = await browser.get('/admin/scopes/movies%3Awrite/clear');
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('<h1>Lift the policy of movies:write?</h1>');
    expect(confirm.text).toContain('Grant movies:write to every user again, not only to the groups editors, admins.');
    expect((await browser.get('/admin/scopes/movies%3Aread/clear')).status).toBe(404);
    const lifted = await browser.post('/admin/scopes/movies%3Awrite/clear', { csrf });
    expect(lifted.status).toBe(303);
    expect((await browser.get('/admin/scopes')).text).toContain('movies:write is open to every user.');
    expect(await server.app.services.scopePolicies.list()).toEqual([]);

    const trail = await browser.get('/admin/audit?event=admin.scope.');
    expect(trail.text).toContain('<td><code>admin.scope.policy_cleared</code></td>');
    expect(trail.text).toContain('scope=movies:write groups=editors,admins');
  });

  it('lists the signing keys with state and age, and rotates after a confirmation page: the new key is in the JWKS', async () => {
    const before = await server.app.services.keys.list();
    const signing = before.find((k) => k.retiredAt === null)!;
    const page = await browser.get('/admin/keys');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Signing keys</h1>');
    expect(page.text).toContain(`<tr data-kid="${signing.kid}" data-state="active">`);
    expect(page.text).toContain('<a class="button" href="/admin/keys/rotate" id="rotate-keys">Rotate now…</a>');
    const confirm = await browser.get('/admin/keys/rotate');
    expect(confirm.text).toContain(`Retire the current key ${signing.kid}: it stays in the JWKS until the tokens it signed have expired.`);
    const rotated = await browser.post('/admin/keys/rotate', { csrf });
    expect(rotated.status).toBe(303);
    expect(rotated.location).toBe('/admin/keys');
    const after = await server.app.services.keys.list();
    const fresh = after.find((k) => !before.some((b) => b.kid === k.kid))!;
    const list = await browser.get('/admin/keys');
    expect(list.text).toContain(`<p class="notice" role="status" id="flash">New signing key ${fresh.kid}. Retired ${signing.kid}, published until `);
    expect(list.text).toContain(`<tr data-kid="${fresh.kid}" data-state="active">`);
    expect(list.text).toContain(`<tr data-kid="${signing.kid}" data-state="retired">`);
    const jwks = (await (await fetch(`${server.issuer}/oauth2/v1/keys`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual([fresh.kid, signing.kid]);
    expect((await browser.get('/admin/audit?event=admin.keys.rotated')).text).toContain(`kid=${fresh.kid} retired=1`);
  });

  it('refuses a rotation without the CSRF token', async () => {
    const count = (await server.app.services.keys.list()).length;
    const refused = await browser.post('/admin/keys/rotate', {});
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('<code>csrf_refused</code>');
    expect((await server.app.services.keys.list()).length).toBe(count);
  });

  it('a read-only auditor sees both pages without their forms, and its posts change nothing', async () => {
    const scopes = await auditor.get('/admin/scopes');
    expect(scopes.status).toBe(200);
    expect(scopes.text).not.toContain('id="policy-form"');
    const keys = await auditor.get('/admin/keys');
    expect(keys.status).toBe(200);
    expect(keys.text).not.toContain('id="rotate-keys"');
    expect((await auditor.get('/admin/keys/rotate')).status).toBe(403);
    const count = (await server.app.services.keys.list()).length;
    for (const [path, fields] of [
      ['/admin/keys/rotate', {}],
      ['/admin/scopes', { scope: 'movies:read', groups: 'auditors' }],
    ] as const) {
      const refused = await auditor.post(path, { csrf: 'read-only-is-refused-first', ...fields });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('<code>read_only</code>');
    }
    expect((await server.app.services.keys.list()).length).toBe(count);
    expect(await server.app.services.scopePolicies.list()).toEqual([]);
  });
});
