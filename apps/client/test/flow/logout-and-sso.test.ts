import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, form, request, startTestAuthServer, type HttpResponse, type TestAuthServer } from '@gatehouse/auth/testing';
import { hiddenField, startClient, type ClientHarness } from '../support/client-harness.ts';
import { startStubApi, type StubApi } from '../support/stub-api.ts';
import { readSession } from '../../src/sessions/session-data.ts';

let auth: TestAuthServer;
let api: StubApi;
let appA: ClientHarness;
let appB: ClientHarness;

beforeAll(async () => {
  auth = await startTestAuthServer();
  api = await startStubApi({ issuer: auth.issuer, audience: auth.audience });
  appA = await startClient({ auth, apiUrl: api.url });
  appB = await startClient({ auth, apiUrl: api.url, env: { CLIENT_SSO_CHECK_INTERVAL: '60' } });
});

afterAll(async () => {
  await appA?.close();
  await appB?.close();
  await api?.close();
  await auth?.close();
});

/** Confirms oidc-provider's logout page the way its same-origin script does. */
async function confirmLogout(jar: CookieJar, page: HttpResponse): Promise<HttpResponse> {
  const action = /<form[^>]+action="([^"]+)"/.exec(page.text)![1]!;
  const xsrf = hiddenField(page.text, 'xsrf');
  return request(jar, new URL(action, auth.issuer).href, { method: 'POST', ...form({ xsrf, logout: 'yes' }) });
}

/** Follows redirects (GET) from `response` while they stay on loopback; returns the last answer. */
async function follow(jar: CookieJar, response: HttpResponse, harness: ClientHarness): Promise<HttpResponse> {
  let current = response;
  for (let hops = 0; hops < 10 && current.location; hops++) {
    const next = new URL(current.location, harness.url).href;
    current = await request(jar, next);
    harness.responses.push(current);
  }
  return current;
}

describe('logout', () => {
  it('ends the session and redirects to the end-session endpoint with id_token_hint and post_logout_redirect_uri', async () => {
    const jar = new CookieJar();
    await appA.login(jar, await auth.createUser());
    const key = jar.cookies.get(appA.config.cookies.session)!;
    const session = readSession(await appA.app.stores.sessions.get(key))!;
    const csrf = hiddenField((await appA.get(jar, '/')).text, '_csrf');

    const response = await appA.post(jar, '/logout', { _csrf: csrf });
    expect(response.status).toBe(302);
    const location = new URL(response.location!);
    expect(`${location.origin}${location.pathname}`).toBe(`${auth.issuer}/oauth2/v1/logout`);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      id_token_hint: session.tokens.idToken,
      post_logout_redirect_uri: `${appA.url}/signed-out`,
      client_id: appA.config.clientId,
    });
    expect(response.headers.getSetCookie().some((l) => l.startsWith(`${appA.config.cookies.session}=;`))).toBe(true);
    expect(await appA.app.stores.sessions.get(key)).toBeUndefined();

    const logoutPage = await request(jar, location.href);
    expect(logoutPage.status).toBe(200);
    const done = await confirmLogout(jar, logoutPage);
    expect(done.location).toBe(`${appA.url}/signed-out`);
    const signedOut = await appA.get(jar, '/signed-out');
    expect(signedOut.status).toBe(200);
    expect(signedOut.text).toContain('You are signed out of');

    // The SSO session is gone too: the next visit shows the login page.
    const again = await appA.get(jar, '/');
    expect(again.status).toBe(302);
    const loginPage = await request(jar, again.location!);
    expect(loginPage.status).toBe(200);
    expect(loginPage.text).toContain('action="/login"');
  });

  it('without a session goes straight to the signed-out page', async () => {
    const response = await appA.post(new CookieJar(), '/logout', {});
    expect(response.status).toBe(303);
    expect(response.location).toBe('/signed-out');
  });
});

describe('single sign-on across apps', () => {
  it('logs into a second app with no login page, then the silent check ends its session after a logout elsewhere', async () => {
    const jar = new CookieJar();
    await appA.login(jar, await auth.createUser({ name: 'Grace Hopper' }));

    // app B: authorize answers straight with a code (SSO cookie), no login page.
    const start = await appB.get(jar, '/');
    const authorize = await request(jar, start.location!);
    expect(authorize.status).toBe(302);
    expect(authorize.location).toMatch(new RegExp(`^${appB.url}/callback\\?code=`));
    const landing = await follow(jar, authorize, appB);
    expect(landing.status).toBe(200);
    expect(landing.text).toContain('<span id="user-name">Grace Hopper</span>');
    const firstKey = jar.cookies.get(appB.config.cookies.session)!;

    // Within the check interval app B does not ask the authorization server.
    expect((await appB.get(jar, '/')).status).toBe(200);

    // After it, a silent prompt=none request confirms the SSO session and keeps the user signed in.
    appB.offsetMs = 61_000;
    const check = await appB.get(jar, '/');
    expect(check.status).toBe(302);
    expect(new URL(check.location!).searchParams.get('prompt')).toBe('none');
    const confirmed = await follow(jar, check, appB);
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain('Grace Hopper');
    expect(jar.cookies.get(appB.config.cookies.session)).not.toBe(firstKey);

    // Logout at app A ends the SSO session; app B's next check ends its session and asks for a login.
    const csrf = hiddenField((await appA.get(jar, '/')).text, '_csrf');
    const logout = await appA.post(jar, '/logout', { _csrf: csrf });
    await confirmLogout(jar, await request(jar, logout.location!));
    appB.offsetMs = 122_000;
    const recheck = await appB.get(jar, '/');
    expect(new URL(recheck.location!).searchParams.get('prompt')).toBe('none');
    const answer = await request(jar, recheck.location!);
    expect(answer.location).toMatch(/[?&]error=login_required/);
    const callback = await appB.get(jar, answer.location!);
    expect(callback.status).toBe(302);
    const interactive = new URL(callback.location!);
    expect(interactive.pathname).toBe('/oauth2/v1/authorize');
    expect(interactive.searchParams.has('prompt')).toBe(false);
    expect(jar.cookies.has(appB.config.cookies.session)).toBe(false);
    const loginPage = await request(jar, interactive.href);
    expect(loginPage.status).toBe(200);
    expect(loginPage.text).toContain('action="/login"');
    appB.offsetMs = 0;
  });
});

describe('secrets', () => {
  it('never appear in the logs: no client secret, token, code or state', async () => {
    const secrets: string[] = [];
    for (const harness of [appA, appB]) {
      secrets.push(harness.clientSecret);
      for (const response of harness.responses) {
        const location = response.location ? new URL(response.location, harness.url) : undefined;
        for (const name of ['code', 'state', 'id_token_hint']) {
          const value = location?.searchParams.get(name);
          if (value) secrets.push(value);
        }
      }
    }
    expect(secrets.length).toBeGreaterThan(10);
    for (const harness of [appA, appB]) {
      expect(harness.logs.some((line) => line.event === 'login.success')).toBe(true);
      const text = JSON.stringify(harness.logs);
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });

  it('the client secret never appears in any response the browser received', () => {
    for (const harness of [appA, appB]) {
      expect(harness.responses.length).toBeGreaterThan(5);
      for (const response of harness.responses) {
        const headers = [...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
        expect(response.text).not.toContain(harness.clientSecret);
        expect(headers).not.toContain(harness.clientSecret);
        expect(decodeURIComponent(response.location ?? '')).not.toContain(harness.clientSecret);
      }
    }
  });
});
