import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_TWO, authorizeUrl, basic, codeFrom, CookieJar, exchange, request, signIn, startServer, type TestAuthServer, type TestUser } from '../support/flow.ts';

describe('single sign-on and prompts', () => {
  let server: TestAuthServer;
  let user: TestUser;
  const jar = new CookieJar();

  beforeAll(async () => {
    server = await startServer();
    user = await server.createUser({ groups: ['sso'] });
    const done = await signIn(server, jar, user, authorizeUrl(server));
    expect(done.status).toBe(302);
  });
  afterAll(() => server.close());

  it('a second registered client gets a code straight away (302, no login page) while the session lives', async () => {
    const state = 'second-app-state';
    const res = await request(jar, authorizeUrl(server, { clientId: APP_TWO.clientId, redirectUri: APP_TWO.redirectUri, state }));
    expect(res.status).toBe(302);
    const target = new URL(res.location!);
    expect(`${target.origin}${target.pathname}`).toBe(APP_TWO.redirectUri);
    expect(target.searchParams.get('state')).toBe(state);
    const tokens = await exchange(server, codeFrom(res.location), {}, APP_TWO);
    expect(tokens.status).toBe(200);
    expect(tokens.body.token_type).toBe('Bearer');
  });

  it('prompt=login shows the login page again despite the session', async () => {
    const res = await request(jar, authorizeUrl(server, { prompt: 'login' }));
    expect(res.status).toBe(200);
    expect(res.text).toContain('<form method="post" action="/login"');
  });

  it('prompt=none without a session returns login_required to the client', async () => {
    const fresh = new CookieJar();
    const res = await request(fresh, authorizeUrl(server, { prompt: 'none', state: 'quiet' }));
    expect(res.status).toBe(302);
    const target = new URL(res.location!);
    expect(`${target.origin}${target.pathname}`).toBe(server.testClient.redirectUri);
    expect(target.searchParams.get('error')).toBe('login_required');
    expect(target.searchParams.get('state')).toBe('quiet');
  });

  it('prompt=none with a session returns a code', async () => {
    const res = await request(jar, authorizeUrl(server, { prompt: 'none' }));
    expect(res.status).toBe(302);
    expect(new URL(res.location!).searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
  });

  it('RP-initiated logout ends the SSO session and honours the registered post_logout_redirect_uri', async () => {
    const sso = await request(jar, authorizeUrl(server, { clientId: APP_TWO.clientId, redirectUri: APP_TWO.redirectUri }));
    const tokens = await exchange(server, codeFrom(sso.location), {}, APP_TWO);
    const idToken = String(tokens.body.id_token);
    const refreshToken = String(tokens.body.refresh_token);
    const logoutUrl = new URL('/oauth2/v1/logout', server.issuer);
    logoutUrl.search = new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: 'http://127.0.0.1:7/signed-out', state: 'bye' }).toString();
    const page = await request(jar, logoutUrl.toString());
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:7");
    expect(page.text).toContain('<script src="/static/logout.js" defer></script>');
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.text)![1]!;
    const confirm = await request(jar, `${server.issuer}/oauth2/v1/logout/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
    });
    expect(confirm.status).toBe(303);
    expect(confirm.location).toBe('http://127.0.0.1:7/signed-out?state=bye');
    expect(jar.cookies.has('gh_auth_session')).toBe(false);
    // The grants of the ended session are revoked: app-two's next refresh needs a new login.
    const refreshed = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(APP_TWO.clientId, APP_TWO.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    });
    expect(refreshed.status).toBe(400);
    expect(((await refreshed.json()) as Record<string, unknown>).error).toBe('invalid_grant');
    const again = await request(jar, authorizeUrl(server));
    expect(again.status).toBe(200);
    expect(again.text).toContain('action="/login"');
  });

  it('an unregistered post_logout_redirect_uri is refused', async () => {
    const logoutUrl = new URL('/oauth2/v1/logout', server.issuer);
    logoutUrl.search = new URLSearchParams({ client_id: APP_TWO.clientId, post_logout_redirect_uri: 'https://evil.example/' }).toString();
    const res = await request(new CookieJar(), logoutUrl.toString());
    expect(res.status).toBe(400);
    expect(res.text).toContain('post_logout_redirect_uri not registered');
  });
});
