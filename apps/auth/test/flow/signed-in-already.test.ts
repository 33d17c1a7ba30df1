/**
 * Back from the app after signing in opens the finished sign-in's page again
 * (interactions/signed-in-already.ts): with the SSO session it says the user is signed in and
 * leads on to the app's registered home; without one, or for a sign-in another browser started,
 * it stays the expired page; JSON keeps 400 interaction_expired.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { APP_TWO, authorizeUrl, CookieJar, form, request, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';

const h1 = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];
const wayOn = (html: string) => {
  const match = /<a class="button" id="way-on" href="([^"]*)">([^<]*)<\/a>/.exec(html);
  return match ? [match[1], match[2]] : undefined;
};
const SESSION_COOKIES = ['gh_auth_session', 'gh_auth_session.sig'];

describe.each(TEST_ENGINES)('the page of a finished sign-in on %s', (engine) => {
  let server: TestAuthServer;
  let user: TestUser;
  const clock = { now: Date.now() };

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now });
    user = await server.createUser();
  });
  afterAll(() => server.close());

  const page = (jar: CookieJar, uid: string, headers: Record<string, string> = {}) => request(jar, `${server.issuer}/interaction/${uid}`, { headers: { accept: 'text/html', ...headers } });

  /** A whole sign-in in `jar` for `app`; answers the interaction's uid. */
  async function signIn(jar: CookieJar, app: { clientId: string; redirectUri: string } = server.testClient, prompt?: string): Promise<string> {
    const uid = uidOf((await request(jar, authorizeUrl(server, { clientId: app.clientId, redirectUri: app.redirectUri, ...(prompt ? { prompt } : {}) }))).text);
    expect((await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) })).status).toBe(200);
    clock.now += 31_000;
    const done = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code: await server.app.services.totp.generate(user.totpSecret, clock.now) }) });
    expect(done.status).toBe(302);
    expect(done.location?.startsWith(`${app.redirectUri}?code=`)).toBe(true);
    return uid;
  }

  it('with the session: 200 "You are already signed in", naming the user, and "Continue to <app>" to the home of its first redirect URI', async () => {
    const jar = new CookieJar();
    const uid = await signIn(jar);
    const back = await page(jar, uid);
    expect(back.status).toBe(200);
    expect(h1(back.text)).toBe('You are already signed in');
    expect(back.text).toContain(`<p class="" role="status">You are signed in as ${user.username}. This sign-in is finished, so there is nothing more to enter here: continue to Test App.</p>`);
    expect(wayOn(back.text)).toEqual(['http://127.0.0.1:9/', 'Continue to Test App']);
    expect(back.text).not.toContain('interaction_expired');
    expect(back.headers.get('cache-control')).toBe('no-store');

    const german = await page(jar, uid, { 'accept-language': 'de' });
    expect(german.status).toBe(200);
    expect(h1(german.text)).toBe('Sie sind bereits angemeldet');
    expect(wayOn(german.text)).toEqual(['http://127.0.0.1:9/', 'Weiter zu Test App']);
    expect(german.text).not.toContain('{{missing:');

    const json = await request(jar, `${server.issuer}/interaction/${uid}`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(400);
    expect(json.json()).toEqual({ error: 'interaction_expired', error_description: expect.any(String) });
  });

  it('the app is the one the sign-in was for', async () => {
    const jar = new CookieJar();
    await signIn(jar);
    const uid = await signIn(jar, APP_TWO, 'login');
    const back = await page(jar, uid);
    expect(back.status).toBe(200);
    expect(wayOn(back.text)).toEqual(['http://127.0.0.1:7/', 'Continue to App Two']);
  });

  it('without the session, or in a browser that did not start the sign-in: the expired page', async () => {
    const jar = new CookieJar();
    const uid = await signIn(jar);
    const other = new CookieJar();
    await signIn(other);
    const foreign = await page(other, uid);
    expect(foreign.status).toBe(400);
    expect(h1(foreign.text)).toBe('This sign-in has expired');

    for (const name of SESSION_COOKIES) jar.cookies.delete(name);
    const back = await page(jar, uid);
    expect(back.status).toBe(400);
    expect(h1(back.text)).toBe('This sign-in has expired');
    expect(wayOn(back.text)).toEqual(['http://127.0.0.1:9/', 'Back to Test App']);
  });

  it('a session of a disabled account is no session: the expired page', async () => {
    const disabled = await server.createUser();
    const jar = new CookieJar();
    const uid = uidOf((await request(jar, authorizeUrl(server))).text);
    await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: disabled.username, password: disabled.password }) });
    clock.now += 31_000;
    expect((await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code: await server.app.services.totp.generate(disabled.totpSecret, clock.now) }) })).status).toBe(302);
    await server.app.services.accounts.setDisabled(disabled.username, clock.now);
    const back = await page(jar, uid);
    expect(back.status).toBe(400);
    expect(h1(back.text)).toBe('This sign-in has expired');
  });
});
