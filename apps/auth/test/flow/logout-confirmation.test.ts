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

  /** A browser signed in as a new user (or as `as`, a second browser), with an ID token of APP_TWO for that session. */
  async function signedIn(as?: TestUser): Promise<{ jar: CookieJar; user: TestUser; idToken: string }> {
    const jar = new CookieJar();
    const user = as ?? (await server.createUser());
    // A second browser of the same user signs in with the next TOTP code (a code is taken once).
    const done = await signIn(server, jar, user, authorizeUrl(server, { clientId: APP_TWO.clientId, redirectUri: APP_TWO.redirectUri }), as ? Date.now() + 30_000 : Date.now());
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
    expect(page.text).toContain('<p class="muted" id="logout-everywhere-choice">You are not signed in to Gatehouse anywhere else. Sign out everywhere ends');
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

  it('"Sign out everywhere" is the second choice: the same form with logout=everywhere ends this session and every other one of the account', async () => {
    const { jar, user } = await signedIn();
    const { jar: otherJar } = await signedIn(user);
    const page = await request(jar, logoutUrl());
    expect(page.text).toContain('<p class="muted" id="logout-everywhere-choice">You are also signed in to Gatehouse in 1 other browser or device. Sign out everywhere ends every session of your account and every app&#39;s access to it: each browser, device and app must sign in again.</p>');
    expect(page.text).toContain('<button type="submit" form="op.logoutForm" value="everywhere" name="logout" class="secondary" id="logout-everywhere">Sign out everywhere</button>');
    // The choices in order: Sign out, Sign out everywhere, Stay signed in.
    expect(page.text.indexOf('id="logout-confirm"')).toBeLessThan(page.text.indexOf('id="logout-everywhere"'));
    expect(page.text.indexOf('id="logout-everywhere"')).toBeLessThan(page.text.indexOf('id="logout-cancel"'));
    const german = await request(jar, logoutUrl(), { headers: { 'accept-language': 'de' } });
    expect(german.text).toContain('Sie sind außerdem in einem anderen Browser oder Gerät bei Gatehouse angemeldet.');
    expect(german.text).toContain('id="logout-everywhere">Überall abmelden</button>');
    expect(german.text).not.toContain('{{missing:');
    // The last page shown holds the form's current xsrf token.
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(german.text)![1]!;

    // Without the form's xsrf token nothing ends, here or elsewhere.
    expect((await confirm(jar, { xsrf: 'forged-by-another-site', logout: 'everywhere' })).status).toBe(400);
    expect(await stillSignedIn(jar)).toBe(true);
    expect(await stillSignedIn(otherJar)).toBe(true);

    const done = await confirm(jar, { xsrf, logout: 'everywhere' });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${server.issuer}/oauth2/v1/logout/success`);
    expect(await stillSignedIn(jar)).toBe(false);
    expect(await stillSignedIn(otherJar)).toBe(false);
    await server.app.flushAudit();
    const audited = await server.app.services.auditEvents.list({ event: { exact: 'session.logout.everywhere' }, limit: 10 });
    expect(audited.map((event) => event.fields.sessions)).toEqual([1]);
    const success = await request(jar, done.location!);
    expect(success.text).toContain('<p class="notice" role="status" id="ended-elsewhere">Signed out everywhere: 1 other session ended. Every browser and device must sign in again.</p>');
    expect(success.text).not.toContain('id="sign-out-everywhere"');
  });

  it('"Sign out" alone leaves the other sessions signed in', async () => {
    const { jar, user } = await signedIn();
    const { jar: otherJar } = await signedIn(user);
    const page = await request(jar, logoutUrl());
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.text)![1]!;
    expect((await confirm(jar, { xsrf, logout: 'yes' })).status).toBe(303);
    expect(await stillSignedIn(jar)).toBe(false);
    expect(await stillSignedIn(otherJar)).toBe(true);
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
