/**
 * RP-initiated logout asks the user unless a valid id_token_hint of this session proves the
 * request (oidc/logout-source.ts, OpenID Connect RP-Initiated Logout 1.0 §2): any other page
 * gets a confirmation page without script, whose "Sign out" posts a CSRF-protected form and
 * whose "Stay signed in" leaves the session alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { APP_TWO, authorizeUrl, codeFrom, CookieJar, exchange, request, signIn, startServer, type TestAuthServer, type TestUser } from '../support/flow.ts';

describe.each(TEST_ENGINES)('logout confirmation on %s', (engine) => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startServer({ engine });
  });
  afterAll(() => server.close());

  /** A browser signed in as a new user, with an ID token of APP_TWO for that session. */
  async function signedIn(): Promise<{ jar: CookieJar; user: TestUser; idToken: string }> {
    const jar = new CookieJar();
    const user = await server.createUser();
    const done = await signIn(server, jar, user, authorizeUrl(server, { clientId: APP_TWO.clientId, redirectUri: APP_TWO.redirectUri }));
    const tokens = await exchange(server, codeFrom(done.location), {}, APP_TWO);
    return { jar, user, idToken: String(tokens.body.id_token) };
  }

  const logoutUrl = (params: Record<string, string> = {}) => `${server.issuer}/oauth2/v1/logout?${new URLSearchParams(params)}`;
  const stillSignedIn = async (jar: CookieJar) => {
    const silent = await request(jar, authorizeUrl(server, { prompt: 'none' }));
    return new URL(silent.location!).searchParams.has('code');
  };
  const confirm = (jar: CookieJar, fields: Record<string, string>) =>
    request(jar, `${server.issuer}/oauth2/v1/logout/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });

  it('without id_token_hint: a page that asks, with no script; staying signed in keeps the session', async () => {
    const { jar, user } = await signedIn();
    const page = await request(jar, logoutUrl());
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(page.text).not.toContain('<script');
    expect(page.text).toContain('<h1>Sign out of Gatehouse?</h1>');
    expect(page.text).toContain(`You are signed in as <strong id="logout-username">${user.username}</strong>.`);
    expect(page.text).toContain('A page asked to sign you out.');
    expect(page.text).toMatch(/<form id="op.logoutForm" method="post" action="[^"]+\/oauth2\/v1\/logout\/confirm"><input type="hidden" name="xsrf" value="[^"]+"\/><\/form>/);
    expect(page.text).toContain('<button type="submit" form="op.logoutForm" value="yes" name="logout" id="logout-confirm" autofocus>Sign out</button>');
    expect(page.text).toContain('<a href="/account" class="button secondary" id="logout-cancel">Stay signed in</a>');
    // "Stay signed in" only navigates to the account page: the session goes on.
    expect((await request(jar, `${server.issuer}/account`)).status).toBe(200);
    expect(await stillSignedIn(jar)).toBe(true);
  });

  it('"Sign out" posts the form with its xsrf token and ends the session; a forged post does not', async () => {
    const { jar } = await signedIn();
    const page = await request(jar, logoutUrl());
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.text)![1]!;
    const forged = await confirm(jar, { xsrf: 'forged-by-another-site', logout: 'yes' });
    expect(forged.status).toBe(400);
    expect(forged.json()).toEqual({ error: 'invalid_request', error_description: 'xsrf token invalid' });
    expect(await stillSignedIn(jar)).toBe(true);
    const done = await confirm(jar, { xsrf, logout: 'yes' });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${server.issuer}/oauth2/v1/logout/success`);
    expect(await stillSignedIn(jar)).toBe(false);
  });

  it('a client_id alone names the application but proves nothing: the page asks', async () => {
    const { jar } = await signedIn();
    const page = await request(jar, logoutUrl({ client_id: APP_TWO.clientId, post_logout_redirect_uri: 'http://127.0.0.1:7/signed-out' }));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<strong id="logout-client">App Two</strong> asks to sign you out.');
    expect(page.text).not.toContain('<script');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:7;");
  });

  it('a valid id_token_hint of this session signs out at once, as before', async () => {
    const { jar, idToken } = await signedIn();
    const page = await request(jar, logoutUrl({ id_token_hint: idToken }));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Signing out</h1>');
    expect(page.text).toContain('<script src="/static/logout.js" defer></script>');
  });

  it("another user's ID token is no proof for this browser's session: the page asks", async () => {
    const other = await signedIn();
    const { jar } = await signedIn();
    const page = await request(jar, logoutUrl({ id_token_hint: other.idToken }));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Sign out of Gatehouse?</h1>');
    expect(page.text).not.toContain('<script');
  });
});
