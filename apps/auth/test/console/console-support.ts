/**
 * Signing a browser (a CookieJar) in to the admin console over HTTP, as a real browser would:
 * /admin → the authorization endpoint → the login and second factor → /admin/callback → the page.
 */
import { expect } from 'vitest';
import { CookieJar, form, request, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';

export interface ConsoleBrowser {
  jar: CookieJar;
  get(path: string): ReturnType<typeof request>;
  post(path: string, fields: Record<string, string>, headers?: Record<string, string>): ReturnType<typeof request>;
}

export function consoleBrowser(server: TestAuthServer, ip: string): ConsoleBrowser {
  const jar = new CookieJar({ 'x-forwarded-for': ip, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36', accept: 'text/html' });
  return {
    jar,
    get: (path) => request(jar, `${server.issuer}${path}`),
    post: (path, fields, headers = {}) => {
      const body = form(fields);
      return request(jar, `${server.issuer}${path}`, { method: 'POST', headers: { ...body.headers, origin: server.issuer, ...headers }, body: body.body });
    },
  };
}

/** Follows a sign-in the console started (`location`, the authorization URL) to its end; returns the callback's redirect. */
export async function completeSignIn(server: TestAuthServer, browser: ConsoleBrowser, user: TestUser, location: string, clock: { now: number }): Promise<string> {
  const loginPage = await request(browser.jar, location);
  expect(loginPage.status).toBe(200);
  const uid = uidOf(loginPage.text);
  const mfa = await request(browser.jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) });
  expect(mfa.status).toBe(200);
  clock.now += 31_000;
  const code = await server.app.services.totp.generate(user.totpSecret, clock.now);
  const done = await request(browser.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
  expect(done.status).toBe(302);
  const callback = await request(browser.jar, done.location!);
  expect(callback.status).toBe(303);
  return callback.location!;
}

/** Signs `user` in to the console in a new browser and returns it, on the dashboard. */
export async function signedInConsole(server: TestAuthServer, user: TestUser, clock: { now: number }, ip: string): Promise<ConsoleBrowser> {
  const browser = consoleBrowser(server, ip);
  const first = await browser.get('/admin');
  expect(first.status).toBe(302);
  expect(await completeSignIn(server, browser, user, first.location!, clock)).toBe('/admin');
  return browser;
}

/** The CSRF token of the console page in `html`. */
export function csrfOf(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF token in the page');
  return match[1]!;
}
