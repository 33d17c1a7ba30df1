/**
 * The account selection, the consent and a passwordless passkey answer a refusal of a browser's
 * form post with 303 to the interaction's page, which shows it once with its status
 * (interactions/step-refusal.ts), so Back and reload never post those forms again; a passkey
 * refusal is counted once, however often the page is shown. API clients and JSON keep the
 * refusal's status (docs/spec.md §4.2). SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { jsonBody } from '../support/index.ts';
import { authorizeUrl, CookieJar, form, request, signIn, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';

const THIRD = { clientId: 'third-app', clientSecret: 'third-app-secret-0123456789abcdef', redirectUri: 'http://127.0.0.1:8/cb' };

const h1 = (html: string) => /<h1>(.*?)<\/h1>/.exec(html)?.[1];
const alertOf = (html: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(html)?.[1];
const errorCodeOf = (html: string) => /<p class="muted">[^<]*<code>([a-z_]+)<\/code><\/p>/.exec(html)?.[1];
const keptRefusal = (headers: Headers) => headers.getSetCookie().some((line) => line.startsWith('gh_auth_refusal=') && !line.startsWith('gh_auth_refusal=;'));

describe.each(TEST_ENGINES)('refusals of the selection, consent and passkey forms redirect on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, env: { TRUST_PROXY: 'true' } });
    await server.app.services.clients.create({
      clientId: THIRD.clientId,
      name: 'Third App',
      redirectUris: [THIRD.redirectUri],
      clientSecret: THIRD.clientSecret,
      grantTypes: ['authorization_code', 'refresh_token'],
    });
  });
  afterAll(() => server.close());

  /** A browser's navigation: a same-origin form post of a page (Sec-Fetch-Dest: document). */
  const navigation = (fields: Record<string, string>) => {
    const body = form(fields);
    return { method: 'POST', headers: { ...body.headers, origin: server.issuer, 'sec-fetch-dest': 'document', accept: 'text/html' }, body: body.body };
  };
  const page = (jar: CookieJar, uid: string) => request(jar, `${server.issuer}/interaction/${uid}`, { headers: { accept: 'text/html' } });
  const signedIn = async (jar: CookieJar) => {
    const user = await server.createUser();
    clock.now += 31_000;
    expect((await signIn(server, jar, user, authorizeUrl(server), clock.now)).status).toBe(302);
    return user;
  };

  it('the account selection: an unknown choice is 303, shown once on the step with 400 and its code; a reload is the step with 200; "Continue" then signs in', async () => {
    const jar = new CookieJar();
    await signedIn(jar);
    const uid = uidOf((await request(jar, authorizeUrl(server, { prompt: 'select_account' }))).text);
    const posted = await request(jar, `${server.issuer}/select-account`, navigation({ uid, choice: 'both' }));
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(`/interaction/${uid}`);
    expect(posted.text).not.toContain('must be');

    const shown = await page(jar, uid);
    expect(shown.status).toBe(400);
    expect(h1(shown.text)).toBe('Choose an account');
    expect(alertOf(shown.text)).toBe('Field &quot;choice&quot; must be &quot;continue&quot; or &quot;another&quot;.');
    expect(errorCodeOf(shown.text)).toBe('invalid_request');
    expect(shown.text).toContain('<form method="post" action="/select-account">');

    const reload = await page(jar, uid);
    expect(reload.status).toBe(200);
    expect(h1(reload.text)).toBe('Choose an account');
    expect(alertOf(reload.text)).toBeUndefined();

    const done = await request(jar, `${server.issuer}/select-account`, navigation({ uid, choice: 'continue' }));
    expect(done.status).toBe(302);
    expect(done.location).toMatch(/^http:\/\/127\.0\.0\.1:9\/callback\?code=/);
  });

  it('the consent: an unknown decision is 303, shown once on the step with 400 and its code; a reload is the step with 200; Allow then signs in', async () => {
    const jar = new CookieJar();
    await signedIn(jar);
    const consent = await request(jar, authorizeUrl(server, { clientId: THIRD.clientId, redirectUri: THIRD.redirectUri }));
    expect(consent.status).toBe(200);
    const uid = uidOf(consent.text);
    const posted = await request(jar, `${server.issuer}/consent`, navigation({ uid, decision: 'maybe' }));
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(`/interaction/${uid}`);

    const shown = await page(jar, uid);
    expect(shown.status).toBe(400);
    expect(shown.text).toContain('<span id="consent-client">Third App</span>');
    expect(alertOf(shown.text)).toBe('Field &quot;decision&quot; must be &quot;allow&quot; or &quot;deny&quot;.');
    expect(errorCodeOf(shown.text)).toBe('invalid_request');

    const reload = await page(jar, uid);
    expect(reload.status).toBe(200);
    expect(alertOf(reload.text)).toBeUndefined();
    expect(reload.text).toContain('<form method="post" action="/consent">');

    const allowed = await request(jar, `${server.issuer}/consent`, navigation({ uid, decision: 'allow' }));
    expect(allowed.status).toBe(302);
    expect(allowed.location).toMatch(/^http:\/\/127\.0\.0\.1:8\/cb\?code=/);
  });

  it('a step after a browser\'s post is a 303 too: "Use another account" to the login, "Continue" to the consent, each a GET of its step', async () => {
    const jar = new CookieJar();
    await signedIn(jar);
    const uid = uidOf((await request(jar, authorizeUrl(server, { prompt: 'select_account' }))).text);
    const another = await request(jar, `${server.issuer}/select-account`, navigation({ uid, choice: 'another' }));
    expect(another.status).toBe(303);
    expect(another.location).toMatch(/^\/interaction\/[\w-]+$/);
    const login = await request(jar, `${server.issuer}${another.location}`, { headers: { accept: 'text/html' } });
    expect(login.status).toBe(200);
    expect(h1(login.text)).toBe('Sign in');

    const third = uidOf((await request(jar, authorizeUrl(server, { clientId: THIRD.clientId, redirectUri: THIRD.redirectUri, prompt: 'select_account' }))).text);
    const chosen = await request(jar, `${server.issuer}/select-account`, navigation({ uid: third, choice: 'continue' }));
    expect(chosen.status).toBe(303);
    const consent = await request(jar, `${server.issuer}${chosen.location}`, { headers: { accept: 'text/html' } });
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('<form method="post" action="/consent">');
  });

  it('API clients keep the 400: a form post without Sec-Fetch-Dest gets the error page, JSON the body, and nothing is kept', async () => {
    const jar = new CookieJar();
    await signedIn(jar);
    const uid = uidOf((await request(jar, authorizeUrl(server, { prompt: 'select_account' }))).text);
    const direct = await request(jar, `${server.issuer}/select-account`, { method: 'POST', headers: { ...form({}).headers, origin: server.issuer, accept: 'text/html' }, body: form({ uid, choice: 'both' }).body });
    expect(direct.status).toBe(400);
    expect(direct.text).toContain('invalid_request');
    expect(keptRefusal(direct.headers)).toBe(false);
    const consent = uidOf((await request(jar, authorizeUrl(server, { clientId: THIRD.clientId, redirectUri: THIRD.redirectUri }))).text);
    const asJson = jsonBody({ uid: consent, decision: 'maybe' });
    const consentJson = await request(jar, `${server.issuer}/consent`, { method: 'POST', headers: { ...asJson.headers, origin: server.issuer }, body: asJson.body });
    expect(consentJson.status).toBe(400);
    expect(consentJson.json()).toEqual({ error: 'invalid_request', error_description: 'Field "decision" must be "allow" or "deny".' });
    expect(keptRefusal(consentJson.headers)).toBe(false);
  });

  it('a refused passwordless passkey: 303, the login page once with 401 and its code; a reload is the empty login with 200; counted once', async () => {
    const jar = new CookieJar();
    const user = await signedIn(jar);
    const soft = new SoftAuthenticator(server.issuer);
    const options = await request(jar, `${server.issuer}/authenticator/passkeys/options`, { method: 'POST', ...jsonBody({}) });
    expect(options.status).toBe(200);
    const registered = await request(jar, `${server.issuer}/authenticator/passkeys`, { method: 'POST', ...jsonBody({ name: 'Laptop', credential: JSON.stringify(soft.register(options.json())) }) });
    expect(registered.status).toBe(201);

    const browser = new CookieJar();
    const uid = uidOf((await request(browser, authorizeUrl(server))).text);
    const ceremony = await request(browser, `${server.issuer}/login/passkey/options`, { method: 'POST', ...jsonBody({ uid }) });
    const credential = JSON.stringify(soft.authenticate(ceremony.json(), { origin: 'http://127.0.0.1:1' }));
    const before = (await server.app.services.regulationStore.failuresSince(`account:${user.username}`, 0)).length;
    const posted = await request(browser, `${server.issuer}/login/passkey`, navigation({ uid, credential }));
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(`/interaction/${uid}`);

    const shown = await page(browser, uid);
    expect(shown.status).toBe(401);
    expect(h1(shown.text)).toBe('Sign in');
    expect(errorCodeOf(shown.text)).toBe('passkey_invalid');
    expect(alertOf(shown.text)).toBe('The passkey answer could not be verified. Try again.');
    const reload = await page(browser, uid);
    expect(reload.status).toBe(200);
    expect(alertOf(reload.text)).toBeUndefined();
    expect(reload.text).toContain('<form method="post" action="/login"');
    expect((await server.app.services.regulationStore.failuresSince(`account:${user.username}`, 0)).length).toBe(before + 1);
  });
});
