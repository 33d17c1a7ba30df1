/**
 * A refused password or code answers a browser's form post with 303 to the interaction's page,
 * which shows the refusal once with its status (interactions/step-refusal.ts), so Back and reload
 * never post a form again; the refusal is counted once, however often the page is shown. API
 * clients and JSON keep the page or body with the refusal's status (docs/spec.md §4.2).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { jsonBody } from '../support/index.ts';
import { authorizeUrl, CookieJar, form, request, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';

/** A browser's navigation: a form post of a page (Sec-Fetch-Dest: document). */
const navigation = (fields: Record<string, string>) => {
  const body = form(fields);
  return { method: 'POST', headers: { ...body.headers, 'sec-fetch-dest': 'document', accept: 'text/html' }, body: body.body };
};
const h1 = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];
const alertOf = (html: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(html)?.[1];
const errorCodeOf = (html: string) => /<code>([a-z_]+)<\/code>/.exec(html)?.[1];
const usernameValue = (html: string) => /<input id="username"[^>]* value="([^"]*)"/.exec(html)?.[1];

describe.each(TEST_ENGINES)('refusals of the sign-in steps redirect on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now });
  });
  afterAll(() => server.close());

  const page = (jar: CookieJar, uid: string, headers: Record<string, string> = {}) => request(jar, `${server.issuer}/interaction/${uid}`, { headers: { accept: 'text/html', ...headers } });
  const failures = async (key: string) => (await server.app.services.regulationStore.failuresSince(key, 0)).length;

  async function startLogin(jar: CookieJar): Promise<string> {
    const login = await request(jar, authorizeUrl(server));
    expect(login.status).toBe(200);
    return uidOf(login.text);
  }

  async function atSecondFactor(user: TestUser): Promise<{ jar: CookieJar; uid: string }> {
    const jar = new CookieJar();
    const uid = await startLogin(jar);
    const posted = await request(jar, `${server.issuer}/login`, navigation({ uid, username: user.username, password: user.password }));
    expect(posted.status).toBe(303);
    return { jar, uid };
  }

  it('a wrong password: 303 to the page, which shows the refusal once with 401 and the username; a reload shows the empty form with 200; counted once', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const uid = await startLogin(jar);
    const posted = await request(jar, `${server.issuer}/login`, navigation({ uid, username: ` ${user.username} `, password: 'not-the-password' }));
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(`/interaction/${uid}`);
    expect(posted.text).not.toContain('Invalid username or password.');

    const shown = await page(jar, uid);
    expect(shown.status).toBe(401);
    expect(h1(shown.text)).toBe('Sign in');
    expect(alertOf(shown.text)).toBe('Invalid username or password.');
    expect(errorCodeOf(shown.text)).toBe('invalid_credentials');
    expect(usernameValue(shown.text)).toBe(user.username);
    expect(shown.text).toContain(`<input type="hidden" name="uid" value="${uid}">`);

    const reload = await page(jar, uid);
    expect(reload.status).toBe(200);
    expect(h1(reload.text)).toBe('Sign in');
    expect(alertOf(reload.text)).toBeUndefined();
    expect(usernameValue(reload.text)).toBe('');
    expect(reload.text).toContain('<form method="post" action="/login"');
    expect(await failures(`account:${user.username}`)).toBe(1);

    // The right password afterwards goes on to the second factor.
    const right = await request(jar, `${server.issuer}/login`, navigation({ uid, username: user.username, password: user.password }));
    expect(right.status).toBe(303);
    expect(h1((await page(jar, uid)).text)).toBe("Confirm it's you");
  });

  it('API clients keep the wire contract: a form post without Sec-Fetch-Dest gets the page with 401, JSON the 401 body', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const uid = await startLogin(jar);
    const direct = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: 'nope' }) });
    expect(direct.status).toBe(401);
    expect(alertOf(direct.text)).toBe('Invalid username or password.');
    expect(direct.headers.getSetCookie().some((line) => line.startsWith('gh_auth_refusal='))).toBe(false);
    const json = await request(jar, `${server.issuer}/login`, { method: 'POST', ...jsonBody({ uid, username: user.username, password: 'nope' }) });
    expect(json.status).toBe(401);
    expect(json.json()).toEqual({ error: 'invalid_credentials', error_description: 'Invalid username or password.', next: '/login' });
    const { jar: codeJar, uid: codeUid } = await atSecondFactor(user);
    const code = await request(codeJar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ uid: codeUid, code: '000000' }) });
    expect(code.status).toBe(401);
    expect(code.json()).toMatchObject({ error: 'invalid_code', status: 'mfa_required' });
  });

  it('a wrong code and a wrong recovery code: each 303, shown once with 401 (the recovery box open), counted once each; the right code then signs in', async () => {
    const user = await server.createUser();
    const account = (await server.app.services.accounts.findByUsername(user.username))!;
    await server.app.services.recoveryCodes.replace(account.id);
    const { jar, uid } = await atSecondFactor(user);

    const wrong = await request(jar, `${server.issuer}/mfa/verify`, navigation({ uid, code: '000000' }));
    expect(wrong.status).toBe(303);
    expect(wrong.location).toBe(`/interaction/${uid}`);
    const shown = await page(jar, uid);
    expect(shown.status).toBe(401);
    expect(alertOf(shown.text)).toBe('That code is not valid. Check the code in your authenticator app and try again.');
    expect(errorCodeOf(shown.text)).toBe('invalid_code');
    const reload = await page(jar, uid);
    expect(reload.status).toBe(200);
    expect(alertOf(reload.text)).toBeUndefined();
    expect(reload.text).toContain('<input id="code" name="code"');
    expect(await failures(`mfa:${user.username}`)).toBe(1);

    const recovery = await request(jar, `${server.issuer}/mfa/verify`, navigation({ uid, method: 'recovery', code: 'aaaa-bbbb-cccc' }));
    expect(recovery.status).toBe(303);
    const recoveryShown = await page(jar, uid);
    expect(recoveryShown.status).toBe(401);
    expect(alertOf(recoveryShown.text)).toBe('That recovery code is not valid.');
    expect(recoveryShown.text).toContain('<details class="alt-method" open>');
    expect(h1((await page(jar, uid)).text)).toBe("Confirm it's you");
    expect(await failures(`mfa:${user.username}`)).toBe(2);

    const signedIn = await request(jar, `${server.issuer}/mfa/verify`, navigation({ uid, code: await server.app.services.totp.generate(user.totpSecret, clock.now) }));
    expect(signedIn.status).toBe(302);
    expect(signedIn.location).toMatch(/^http:\/\/127\.0\.0\.1:9\/callback\?code=/);
  });

  it('too many attempts: the page shows 429 with Retry-After once, and the refused attempt is not counted', async () => {
    const user = await server.createUser();
    const { jar, uid } = await atSecondFactor(user);
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await request(jar, `${server.issuer}/mfa/verify`, navigation({ uid, code: '000000' }))).status).toBe(303);
      expect((await page(jar, uid)).status).toBe(401);
    }
    expect(await failures(`mfa:${user.username}`)).toBe(5);
    const refused = await request(jar, `${server.issuer}/mfa/verify`, navigation({ uid, code: '000000' }));
    expect(refused.status).toBe(303);
    const shown = await page(jar, uid);
    expect(shown.status).toBe(429);
    expect(shown.headers.get('retry-after')).toBe('30');
    expect(alertOf(shown.text)).toBe('Too many attempts. Try again in 30 seconds.');
    const german = await request(jar, `${server.issuer}/mfa/verify`, navigation({ uid, code: '000000' }));
    expect(german.status).toBe(303);
    const shownInGerman = await page(jar, uid, { 'accept-language': 'de' });
    expect(shownInGerman.status).toBe(429);
    expect(alertOf(shownInGerman.text)).toBe('Zu viele Versuche. Versuchen Sie es in 30 Sekunden erneut.');
    const reload = await page(jar, uid);
    expect(reload.status).toBe(200);
    expect(reload.headers.get('retry-after')).toBeNull();
    expect(await failures(`mfa:${user.username}`)).toBe(5);
  });

  it("a refusal is shown only on its own interaction's page", async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const first = await startLogin(jar);
    expect((await request(jar, `${server.issuer}/login`, navigation({ uid: first, username: user.username, password: 'nope' }))).status).toBe(303);
    const second = await startLogin(jar);
    const other = await page(jar, second);
    expect(other.status).toBe(200);
    expect(alertOf(other.text)).toBeUndefined();
    // Read once: the first interaction's page does not show it either.
    const own = await page(jar, first);
    expect(own.status).toBe(200);
    expect(alertOf(own.text)).toBeUndefined();
  });

  it('a forged refusal cookie is ignored', async () => {
    const jar = new CookieJar();
    const uid = await startLogin(jar);
    const payload = Buffer.from(JSON.stringify({ uid, step: 'login', status: 401, code: 'invalid_credentials', message: 'Forged.' })).toString('base64url');
    jar.cookies.set('gh_auth_refusal', `${payload}.AAAA`);
    const shown = await page(jar, uid);
    expect(shown.status).toBe(200);
    expect(shown.text).not.toContain('Forged.');
  });
});
