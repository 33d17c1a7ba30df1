import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { authorizeUrl, CookieJar, form, request, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';

// The sign-in pages name the app by its display name and logo, let several tabs sign in at once,
// and end a sign-in that cannot go on on a page that leads on; on the embedded SQLite default and
// on PostgreSQL.
describe.each(TEST_ENGINES)('the sign-in pages on %s', (engine) => {
  let server: TestAuthServer;
  let user: TestUser;
  const branded = { clientId: 'movie-night', redirectUri: 'http://127.0.0.1:9/movie-night/callback', logoUri: 'https://cdn.example.com/movie-night/logo.png' };
  const imgSrc = (csp: string | null) => /img-src ([^;]*)/.exec(csp ?? '')?.[1];

  beforeAll(async () => {
    server = await startServer({ engine });
    user = await server.createUser();
    await server.app.services.clients.create({
      clientId: branded.clientId,
      name: 'Movie Night',
      logoUri: branded.logoUri,
      redirectUris: [branded.redirectUri],
      clientSecret: 'movie-night-secret-0123456789abcdef',
      grantTypes: ['authorization_code'],
      firstParty: true,
    });
  });
  afterAll(() => server.close());

  it('the login and second-factor pages name the app and show its registered logo, whose origin alone the CSP allows', async () => {
    const jar = new CookieJar();
    const login = await request(jar, authorizeUrl(server, { clientId: branded.clientId, redirectUri: branded.redirectUri }));
    expect(login.status).toBe(200);
    expect(login.text).toContain('to continue to <strong>Movie Night</strong>');
    expect(login.text).toContain(`<img id="client-logo" class="client-logo" src="${branded.logoUri}" alt="Movie Night logo" width="40" height="40" referrerpolicy="no-referrer">`);
    expect(imgSrc(login.headers.get('content-security-policy'))).toBe("'self' data: https://cdn.example.com");

    const mfa = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid: uidOf(login.text), username: user.username, password: user.password }) });
    expect(mfa.status).toBe(200);
    expect(mfa.text).toContain('to continue to <strong>Movie Night</strong>');
    expect(mfa.text).toContain(`src="${branded.logoUri}" alt="Movie Night logo"`);
    expect(imgSrc(mfa.headers.get('content-security-policy'))).toBe("'self' data: https://cdn.example.com");
  });

  it('an app without a logo: its name, no image, and images stay same-origin', async () => {
    const jar = new CookieJar();
    const login = await request(jar, authorizeUrl(server));
    expect(login.text).toContain('to continue to <strong>Test App</strong>');
    expect(login.text).not.toContain('<img');
    expect(imgSrc(login.headers.get('content-security-policy'))).toBe("'self' data:");
  });

  it('the JSON contract of the login step is unchanged (the display name, no logo member)', async () => {
    const jar = new CookieJar();
    const login = await request(jar, authorizeUrl(server, { clientId: branded.clientId, redirectUri: branded.redirectUri }), { headers: { accept: 'application/json' } });
    expect(login.status).toBe(200);
    expect(login.json()).toEqual({ status: 'login_required', interaction: expect.any(String), next: '/login', client: 'Movie Night' });
  });

  const page = (jar: CookieJar, url: string) => request(jar, url, { headers: { accept: 'text/html' } });
  const postLogin = (jar: CookieJar, fields: Record<string, string>, headers: Record<string, string> = {}) => {
    const body = form(fields);
    return request(jar, `${server.issuer}/login`, { method: 'POST', headers: { ...body.headers, accept: 'text/html', ...headers }, body: body.body });
  };
  const wayOn = (html: string) => /<a class="button" id="way-on" href="([^"]*)">([^<]*)<\/a>/.exec(html)?.slice(1, 3);
  const h1 = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];

  it("two tabs: the first tab's password and code still sign in to its app after a second tab started another sign-in, and the second tab's then too", async () => {
    const jar = new CookieJar();
    const second = await server.createUser();
    const tabOne = uidOf((await page(jar, authorizeUrl(server))).text);
    const tabTwo = uidOf((await page(jar, authorizeUrl(server, { clientId: branded.clientId, redirectUri: branded.redirectUri }))).text);
    expect(tabTwo).not.toBe(tabOne);

    const mfaOne = await postLogin(jar, { uid: tabOne, username: user.username, password: user.password });
    expect(mfaOne.status).toBe(200);
    expect(mfaOne.text).toContain('to continue to <strong>Test App</strong>');
    const doneOne = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: tabOne, code: await server.app.services.totp.generate(user.totpSecret, Date.now()) }) });
    expect(doneOne.status).toBe(302);
    expect(doneOne.location!.startsWith(`${server.testClient.redirectUri}?code=`)).toBe(true);

    const mfaTwo = await postLogin(jar, { uid: tabTwo, username: second.username, password: second.password });
    expect(mfaTwo.status).toBe(200);
    expect(mfaTwo.text).toContain('to continue to <strong>Movie Night</strong>');
  });

  it('an interaction this browser did not start is refused (interaction_expired), with a way back to its app', async () => {
    const owner = new CookieJar();
    const uid = uidOf((await page(owner, authorizeUrl(server))).text);
    const stranger = new CookieJar();
    await page(stranger, authorizeUrl(server, { clientId: branded.clientId, redirectUri: branded.redirectUri }));
    for (const jar of [stranger, new CookieJar()]) {
      const refused = await postLogin(jar, { uid, username: user.username, password: user.password });
      expect(refused.status).toBe(400);
      expect(h1(refused.text)).toBe('This sign-in has expired');
      expect(refused.text).toContain('<code>interaction_expired</code>');
      expect(wayOn(refused.text)).toEqual(['http://127.0.0.1:9/', 'Back to Test App']);
    }
    // The JSON answer is the contract's.
    const json = await request(new CookieJar(), `${server.issuer}/login`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ uid, username: user.username, password: user.password }) });
    expect(json.status).toBe(400);
    expect(json.json()).toEqual({ error: 'interaction_expired', error_description: expect.any(String) });
  });

  it('an expired sign-in page leads back to its app; a form of another step leads to the same authorization request again', async () => {
    const jar = new CookieJar();
    const url = authorizeUrl(server, { state: 'st-again' });
    const uid = uidOf((await page(jar, url)).text);
    const consentPost = await request(jar, `${server.issuer}/consent`, { method: 'POST', headers: { ...form({}).headers, origin: server.issuer, accept: 'text/html' }, body: form({ uid, decision: 'allow' }).body });
    expect(consentPost.status).toBe(400);
    const [href, label] = wayOn(consentPost.text)!;
    expect(label).toBe('Start again');
    const again = new URL(href!.replaceAll('&amp;', '&'), server.issuer);
    expect(again.pathname).toBe('/oauth2/v1/authorize');
    expect(Object.fromEntries(again.searchParams)).toMatchObject(Object.fromEntries(new URL(url).searchParams));
    expect((await page(jar, again.href)).status).toBe(200);

    const expiredUid = uidOf((await page(jar, authorizeUrl(server))).text);
    // Its time is up: oidc-provider no longer finds it.
    await server.database.db.deleteFrom('oidc_payloads').where('model', '=', 'Interaction').where('id', '=', expiredUid).execute();
    const expired = await postLogin(jar, { uid: expiredUid, username: user.username, password: user.password });
    expect(expired.status).toBe(400);
    expect(h1(expired.text)).toBe('This sign-in has expired');
    expect(wayOn(expired.text)).toEqual(['http://127.0.0.1:9/', 'Back to Test App']);
  });

  it("a browser's password post is answered 303 to the interaction page, which shows the second factor (post/redirect/get)", async () => {
    const jar = new CookieJar();
    const uid = uidOf((await page(jar, authorizeUrl(server))).text);
    const posted = await postLogin(jar, { uid, username: user.username, password: user.password }, { 'sec-fetch-dest': 'document' });
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(`/interaction/${uid}`);
    const shown = await page(jar, `${server.issuer}/interaction/${uid}`);
    expect(shown.status).toBe(200);
    expect(h1(shown.text)).toBe("Confirm it's you");
    expect(shown.text).toContain(`<input type="hidden" name="uid" value="${uid}">`);
  });

  it('the 404 page and an unknown app are human pages with a way on', async () => {
    for (const path of ['/', '/no-such-page']) {
      const missing = await page(new CookieJar(), `${server.issuer}${path}`);
      expect(missing.status).toBe(404);
      expect(h1(missing.text)).toBe('Page not found');
      expect(wayOn(missing.text)).toEqual(['/account', 'Go to your account']);
    }
    const unknown = await page(new CookieJar(), authorizeUrl(server, { clientId: 'no-such-app' }));
    expect(unknown.status).toBe(400);
    expect(h1(unknown.text)).toBe('Unknown application');
    expect(unknown.text).not.toContain('client is invalid');
    expect(wayOn(unknown.text)).toEqual(['/account', 'Go to your account']);
  });
});
