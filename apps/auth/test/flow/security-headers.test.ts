/**
 * Every answer of the authorization server carries its security headers, error pages included:
 * the pages written by the outermost error handler (interaction_expired, 415, login_required on
 * the devices page, an unexpected 500) once went out without them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, CookieJar, form, request, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const PAGE_HEADERS = { csp: CSP, nosniff: 'nosniff', referrer: 'no-referrer', frame: 'DENY', cache: 'no-store', type: 'text/html; charset=utf-8' };

const securityHeaders = (headers: Headers) => ({
  csp: headers.get('content-security-policy'),
  nosniff: headers.get('x-content-type-options'),
  referrer: headers.get('referrer-policy'),
  frame: headers.get('x-frame-options'),
  cache: headers.get('cache-control'),
  type: headers.get('content-type'),
});

describe('security headers on error pages', () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('the login page (200) has them; its form-action also allows the client, where a passkey sign-in redirects', async () => {
    const page = await request(new CookieJar(), authorizeUrl(server));
    expect(page.status).toBe(200);
    const clientOrigin = new URL(server.testClient.redirectUri).origin;
    expect(securityHeaders(page.headers)).toEqual({ ...PAGE_HEADERS, csp: CSP.replace("form-action 'self'", `form-action 'self' ${clientOrigin}`) });
  });

  it('an expired interaction (400 interaction_expired page) has them', async () => {
    const page = await request(new CookieJar(), `${server.issuer}/interaction/no-such-interaction`);
    expect(page.status).toBe(400);
    expect(page.text).toContain('interaction_expired');
    expect(securityHeaders(page.headers)).toEqual(PAGE_HEADERS);
  });

  it('an account form posted without a session (401 login_required page) has them', async () => {
    const page = await request(new CookieJar(), `${server.issuer}/account/sessions/sign-out-others`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(page.status).toBe(401);
    expect(page.text).toContain('login_required');
    expect(securityHeaders(page.headers)).toEqual(PAGE_HEADERS);
  });

  it('a refused body type (415 page) has them', async () => {
    const page = await request(new CookieJar(), `${server.issuer}/login`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(page.status).toBe(415);
    expect(securityHeaders(page.headers)).toEqual(PAGE_HEADERS);
  });

  it('an unexpected failure (500 server_error page) has them, and a JSON 500 too (without no-store)', async () => {
    const jar = new CookieJar();
    const uid = uidOf((await request(jar, authorizeUrl(server))).text);
    const { regulator } = server.app.services;
    const check = regulator.check;
    regulator.check = async () => {
      throw new Error('regulation store exploded');
    };
    try {
      const page = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: 'someone', password: 'irrelevant-password' }) });
      expect(page.status).toBe(500);
      expect(page.text).toContain('server_error');
      expect(page.text).not.toContain('exploded');
      expect(securityHeaders(page.headers)).toEqual(PAGE_HEADERS);

      const json = await request(jar, `${server.issuer}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uid, username: 'someone', password: 'irrelevant-password' }),
      });
      expect(json.status).toBe(500);
      expect(json.json()).toEqual({ error: 'server_error', error_description: 'Something went wrong on our side. Try again later.' });
      expect(securityHeaders(json.headers)).toEqual({ ...PAGE_HEADERS, cache: null, type: 'application/json; charset=utf-8' });
    } finally {
      regulator.check = check;
    }
  });

  it("oidc-provider's auto-submitting pages run no inline script: a same-origin script posts where they must", async () => {
    const inlineScript = /<script(?![^>]*\bsrc=)[^>]*>/;
    // A logout without a session posts to the logout confirmation on this server.
    const logout = await fetch(`${server.issuer}/oauth2/v1/logout`);
    const logoutPage = await logout.text();
    expect(logout.status).toBe(200);
    expect(logoutPage).toContain(`<form method="post" action="${server.issuer}/oauth2/v1/logout/confirm" id="form-post">`);
    expect(logoutPage).toContain('<script src="/static/form-post.js" defer></script>');
    expect(logoutPage).not.toMatch(inlineScript);
    expect(logout.headers.get('content-security-policy')).toBe(CSP.replace("form-action 'self'", `form-action 'self' ${new URL(server.issuer).origin}`));
    // The form_post response mode posts the answer (here login_required) to the client.
    const url = new URL(authorizeUrl(server, { prompt: 'none' }));
    url.searchParams.set('response_mode', 'form_post');
    const formPost = await fetch(url);
    const formPostPage = await formPost.text();
    expect(formPost.status).toBe(400);
    expect(formPostPage).toContain('<form method="post" action="http://127.0.0.1:9/callback" id="form-post">');
    expect(formPostPage).toContain('<input type="hidden" name="error" value="login_required">');
    expect(formPostPage).not.toMatch(inlineScript);
    expect(formPost.headers.get('content-security-policy')).toBe(CSP.replace("form-action 'self'", "form-action 'self' http://127.0.0.1:9"));
    const script = await fetch(`${server.issuer}/static/form-post.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(await script.text()).toContain("document.getElementById('form-post')");
    // Any other page keeps the strict policy.
    expect((await fetch(`${server.issuer}/no/such/page`)).headers.get('content-security-policy')).toBe(CSP);
  });
});

