/**
 * prompt=select_account over HTTP (oidc/interaction-policy.ts, interactions/select-account*.ts):
 * with an SSO session the account-selection page ("Continue as", "Use another account"), without
 * one the login form; continuing gives a code for the session's account, another account goes
 * through the login and replaces the session's account (at a client that is not first-party, the
 * new account is then asked for its consent); the page's CSRF and input checks, its
 * JSON variant, and its combinations with prompt=none, prompt=login and max_age.
 * Time moves only by the injected clock (one TOTP step per sign-in). SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { captureLogger } from '../support/push.ts';
import { jsonBody, type HttpResponse } from '../support/cookie-jar.ts';
import { authorizeUrl, codeFrom, CookieJar, decodeJwt, exchange, form, request, signIn, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';

const PICKY = { clientId: 'picky-app', clientSecret: 'picky-app-secret-0123456789abcdef', redirectUri: 'http://127.0.0.1:6/cb' };
const THIRD = { clientId: 'third-app', clientSecret: 'third-app-secret-0123456789abcdef', redirectUri: 'http://127.0.0.1:8/cb' };

describe.each(TEST_ENGINES)('prompt=select_account on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  const { logger, audits } = captureLogger();

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, logger });
    // First-party (no consent step), with a name the page must escape.
    await server.app.services.clients.create({
      clientId: PICKY.clientId,
      name: 'Picky <App> & "Co"',
      redirectUris: [PICKY.redirectUri],
      clientSecret: PICKY.clientSecret,
      grantTypes: ['authorization_code', 'refresh_token'],
      firstParty: true,
    });
    // Not first-party: each account allows it on the consent page.
    await server.app.services.clients.create({
      clientId: THIRD.clientId,
      name: 'Third App',
      redirectUris: [THIRD.redirectUri],
      clientSecret: THIRD.clientSecret,
      grantTypes: ['authorization_code', 'refresh_token'],
    });
  });
  afterAll(() => server.close());

  const select = (params: Parameters<typeof authorizeUrl>[1] = {}) => authorizeUrl(server, { prompt: 'select_account', ...params });
  const login = async (user: TestUser, jar: CookieJar, url: string) => {
    clock.now += 31_000;
    return signIn(server, jar, user, url, clock.now);
  };
  /** Completes the login form `page` shows (password, then TOTP) as `user`. */
  const completeLogin = async (jar: CookieJar, page: HttpResponse, user: TestUser, headers: Record<string, string> = {}) => {
    const uid = uidOf(page.text);
    expect((await request(jar, `${server.issuer}/login`, { method: 'POST', headers: { ...form({}).headers, ...headers }, body: form({ uid, username: user.username, password: user.password }).body })).status).toBe(200);
    clock.now += 31_000;
    const code = await server.app.services.totp.generate(user.totpSecret, clock.now);
    return request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
  };
  const choose = (jar: CookieJar, uid: string, choice: string, headers: Record<string, string> = { origin: server.issuer }) =>
    request(jar, `${server.issuer}/select-account`, { method: 'POST', headers: { ...form({}).headers, ...headers }, body: form({ uid, choice }).body });
  const subOf = async (location: string | null, client = server.testClient) => {
    const tokens = await exchange(server, codeFrom(location), {}, client);
    expect(tokens.status).toBe(200);
    return decodeJwt(String(tokens.body.id_token)).sub;
  };
  const accountId = async (user: TestUser) => (await server.app.services.accounts.findByUsername(user.username))!.id;
  const errorAtClient = (location: string | null) => {
    const target = new URL(location!);
    expect(`${target.origin}${target.pathname}`).toBe(server.testClient.redirectUri);
    return Object.fromEntries(target.searchParams);
  };

  it('discovery lists select_account among the prompt values', async () => {
    const doc = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.prompt_values_supported).toEqual(['none', 'select_account', 'login', 'consent']);
  });

  it('without a session it shows the login form, and the login is the selection (no page after it)', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const page = await request(jar, select({ state: 'fresh' }));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<form method="post" action="/login"');
    expect(page.text).not.toContain('/select-account');
    const done = await completeLogin(jar, page, user);
    expect(done.status).toBe(302);
    expect(new URL(done.location!).searchParams.get('state')).toBe('fresh');
    expect(await subOf(done.location)).toBe(await accountId(user));
  });

  it('with a session it shows the account selection: the client and the account, escaped, two buttons, strict CSP', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    expect((await login(user, jar, authorizeUrl(server))).status).toBe(302);
    const page = await request(jar, select({ clientId: PICKY.clientId, redirectUri: PICKY.redirectUri }));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<form method="post" action="/select-account">');
    expect(page.text).toContain(`<input type="hidden" name="uid" value="${uidOf(page.text)}">`);
    expect(page.text).toContain('<strong id="select-account-client">Picky &lt;App&gt; &amp; &quot;Co&quot;</strong>');
    expect(page.text).toContain(
      `<button type="submit" name="choice" value="continue" id="select-account-continue" autofocus>Continue as <span id="select-account-username" class="account-name">${user.username}</span></button>`,
    );
    expect(page.text).toContain('<button type="submit" name="choice" value="another" class="secondary" id="select-account-another">Use another account</button>');
    expect(page.text).not.toContain('<script');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:6");
  });

  it('"Continue as" gives a code for the same account, and is audited', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    expect((await login(user, jar, authorizeUrl(server))).status).toBe(302);
    const page = await request(jar, select({ state: 'same' }));
    expect(page.status).toBe(200);
    const done = await choose(jar, uidOf(page.text), 'continue');
    expect(done.status).toBe(302);
    expect(errorAtClient(done.location)).toMatchObject({ state: 'same', iss: server.issuer });
    expect(await subOf(done.location)).toBe(await accountId(user));
    expect(audits('login.account_selected').at(-1)).toMatchObject({ account_id: await accountId(user), client_id: server.testClient.clientId, choice: 'continue' });
    // The selection was made: the same authorization does not ask again, and the next one without the prompt gets a code at once.
    const quiet = await request(jar, authorizeUrl(server));
    expect(quiet.status).toBe(302);
    expect(await subOf(quiet.location)).toBe(await accountId(user));
  });

  it('"Use another account" shows the login form; the new account is in the ID token and the session holds it', async () => {
    const first = await server.createUser();
    const second = await server.createUser();
    const jar = new CookieJar();
    expect((await login(first, jar, authorizeUrl(server))).status).toBe(302);
    const page = await request(jar, select({ state: 'other' }));
    const loginForm = await choose(jar, uidOf(page.text), 'another');
    expect(loginForm.status).toBe(200);
    expect(loginForm.text).toContain('<form method="post" action="/login"');
    expect(audits('login.account_selected').at(-1)).toMatchObject({ account_id: await accountId(first), choice: 'another' });

    // oidc-provider signs the previous account out of this browser (its logout form, posted by
    // /static/form-post.js), then resumes the authorization with the new account.
    const signOut = await completeLogin(jar, loginForm, second);
    expect(signOut.status).toBe(200);
    expect(signOut.text).toContain(`<form method="post" action="${server.issuer}/oauth2/v1/logout/confirm" id="form-post">`);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(signOut.text)![1]!;
    const confirmed = await request(jar, `${server.issuer}/oauth2/v1/logout/confirm`, { method: 'POST', headers: { ...form({}).headers, origin: server.issuer }, body: form({ xsrf, logout: 'yes' }).body });
    expect(confirmed.status).toBe(303);
    const resumed = await request(jar, new URL(confirmed.location!, server.issuer).toString());
    expect(resumed.status).toBe(302);
    expect(errorAtClient(resumed.location)).toMatchObject({ state: 'other', iss: server.issuer });
    expect(await subOf(resumed.location)).toBe(await accountId(second));

    // The session now holds the new account: prompt=none answers for it.
    const quiet = await request(jar, authorizeUrl(server, { prompt: 'none' }));
    expect(quiet.status).toBe(302);
    expect(await subOf(quiet.location)).toBe(await accountId(second));
    const again = await request(jar, select());
    expect(again.text).toContain(`Continue as <span id="select-account-username" class="account-name">${second.username}</span>`);
  });

  it('another account at a client that is not first-party: the new account gets the consent page, then a code for it', async () => {
    const first = await server.createUser();
    const second = await server.createUser();
    const jar = new CookieJar();
    const third = { clientId: THIRD.clientId, redirectUri: THIRD.redirectUri, scope: 'openid profile' };
    const allow = (uid: string) =>
      request(jar, `${server.issuer}/consent`, { method: 'POST', headers: { ...form({}).headers, origin: server.issuer }, body: form({ uid, decision: 'allow' }).body });
    const consentFirst = await login(first, jar, authorizeUrl(server, third));
    expect(consentFirst.text).toContain('id="consent-allow"');
    expect((await allow(uidOf(consentFirst.text))).status).toBe(302);

    const page = await request(jar, select(third));
    expect(page.text).toContain(`Continue as <span id="select-account-username" class="account-name">${first.username}</span>`);
    const loginForm = await choose(jar, uidOf(page.text), 'another');
    const signOut = await completeLogin(jar, loginForm, second);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(signOut.text)![1]!;
    const confirmed = await request(jar, `${server.issuer}/oauth2/v1/logout/confirm`, { method: 'POST', headers: { ...form({}).headers, origin: server.issuer }, body: form({ xsrf, logout: 'yes' }).body });
    const consentSecond = await request(jar, new URL(confirmed.location!, server.issuer).toString());
    expect(consentSecond.status).toBe(200);
    expect(consentSecond.text).toContain(`Signed in as <strong id="consent-username">${second.username}</strong>`);
    const done = await allow(uidOf(consentSecond.text));
    expect(done.status).toBe(302);
    expect(await subOf(done.location, THIRD)).toBe(await accountId(second));
  });

  it('prompt=none with select_account is refused as OIDC Core says (none only alone), at the client with its state', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    expect((await login(user, jar, authorizeUrl(server))).status).toBe(302);
    for (const prompt of ['none select_account', 'select_account none']) {
      const res = await request(jar, authorizeUrl(server, { prompt, state: 'mixed' }));
      expect(res.status).toBe(302);
      expect(errorAtClient(res.location)).toEqual({ error: 'invalid_request', error_description: 'prompt none must only be used alone', state: 'mixed', iss: server.issuer });
    }
  });

  it('prompt=none never needs an account selection: a code with a session, login_required without', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const without = await request(jar, authorizeUrl(server, { prompt: 'none', state: 'nobody' }));
    expect(errorAtClient(without.location)).toMatchObject({ error: 'login_required', state: 'nobody' });
    expect((await login(user, jar, authorizeUrl(server))).status).toBe(302);
    const withSession = await request(jar, authorizeUrl(server, { prompt: 'none' }));
    expect(withSession.status).toBe(302);
    expect(await subOf(withSession.location)).toBe(await accountId(user));
  });

  it('prompt=select_account login: the selection, then the login, each once', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    expect((await login(user, jar, authorizeUrl(server))).status).toBe(302);
    const page = await request(jar, select({ prompt: 'select_account login' }));
    expect(page.text).toContain('action="/select-account"');
    const loginForm = await choose(jar, uidOf(page.text), 'continue');
    expect(loginForm.status).toBe(200);
    expect(loginForm.text).toContain('action="/login"');
    const done = await completeLogin(jar, loginForm, user);
    expect(done.status).toBe(302);
    expect(await subOf(done.location)).toBe(await accountId(user));
  });

  it('prompt=select_account with max_age=0: the selection, then the login the max_age asks for', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    expect((await login(user, jar, authorizeUrl(server))).status).toBe(302);
    const url = new URL(select());
    url.searchParams.set('max_age', '0');
    const page = await request(jar, url.toString());
    expect(page.text).toContain('action="/select-account"');
    const loginForm = await choose(jar, uidOf(page.text), 'continue');
    expect(loginForm.text).toContain('action="/login"');
    const done = await completeLogin(jar, loginForm, user);
    expect(done.status).toBe(302);
    const tokens = await exchange(server, codeFrom(done.location));
    expect(decodeJwt(String(tokens.body.id_token)).auth_time).toBe(Math.floor(clock.now / 1000));
  });

  it('refuses a cross-site post, an unknown choice and another interaction’s uid, and keeps the step', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    expect((await login(user, jar, authorizeUrl(server))).status).toBe(302);
    const page = await request(jar, select());
    const uid = uidOf(page.text);
    const crossSite = await choose(jar, uid, 'continue', { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    expect(crossSite.text).toContain('Cross-site requests to this page are refused.');
    const fetchSite = await choose(jar, uid, 'continue', { 'sec-fetch-site': 'cross-site' });
    expect(fetchSite.status).toBe(403);
    const unknown = await request(jar, `${server.issuer}/select-account`, { method: 'POST', ...jsonBody({ uid, choice: 'both' }) });
    expect(unknown.status).toBe(400);
    expect(unknown.json()).toMatchObject({ error: 'invalid_request', error_description: 'Field "choice" must be "continue" or "another".' });
    const otherUid = await request(jar, `${server.issuer}/select-account`, { method: 'POST', ...jsonBody({ uid: 'not-this-one', choice: 'continue' }) });
    expect(otherUid.status).toBe(400);
    expect(otherUid.json()).toMatchObject({ error: 'interaction_expired' });
    // The step is still there to answer.
    const done = await choose(jar, uid, 'continue');
    expect(done.status).toBe(302);
  });

  it('a login step cannot be answered as an account selection', async () => {
    const jar = new CookieJar();
    const page = await request(jar, select());
    expect(page.text).toContain('action="/login"');
    const res = await request(jar, `${server.issuer}/select-account`, { method: 'POST', ...jsonBody({ uid: uidOf(page.text), choice: 'continue' }) });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ error: 'interaction_expired' });
  });

  it('a JSON caller gets the step as JSON; continue answers the redirect, another the login step', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    expect((await login(user, jar, authorizeUrl(server))).status).toBe(302);
    const step = await request(jar, select(), { headers: { accept: 'application/json' } });
    expect(step.status).toBe(200);
    const body = step.json<{ interaction: string }>();
    expect(body).toEqual({
      status: 'account_selection_required',
      interaction: body.interaction,
      next: '/select-account',
      client: 'Test App',
      username: user.username,
      choices: ['continue', 'another'],
    });
    const done = await request(jar, `${server.issuer}/select-account`, { method: 'POST', ...jsonBody({ uid: body.interaction, choice: 'continue' }) });
    expect(done.status).toBe(302);
    expect(await subOf(done.json<{ redirect_to: string }>().redirect_to)).toBe(await accountId(user));

    const next = (await request(jar, select(), { headers: { accept: 'application/json' } })).json<{ interaction: string }>();
    const another = await request(jar, `${server.issuer}/select-account`, { method: 'POST', ...jsonBody({ uid: next.interaction, choice: 'another' }) });
    expect(another.status).toBe(200);
    const loginStep = another.json<{ interaction: string }>();
    expect(loginStep).toEqual({ status: 'login_required', interaction: loginStep.interaction, next: '/login', client: 'Test App' });
  });
});
