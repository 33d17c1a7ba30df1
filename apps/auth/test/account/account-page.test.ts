/**
 * The self-service account page (/account) over HTTP, on SQLite and PostgreSQL: the sign-in
 * that comes back to it, the profile and sessions, changing the password, re-enrolling TOTP and
 * signing out the other sessions, with each form's refusals (wrong current credential, password
 * rules, cross-site post, no session). Time moves only by the injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { captureLogger } from '../support/push.ts';
import { authorizeUrl, codeFrom, CookieJar, exchange, form, refresh, request, signIn, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';

const CHROME_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

describe.each(TEST_ENGINES)('the account page on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  const { logger, lines, audits } = captureLogger();
  let nextIp = 1;

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, env: { TRUST_PROXY: 'true', AUTH_ACCOUNT_REAUTH_MAX_AGE: '3600' }, logger });
  });
  afterAll(() => server.close());

  const browser = (userAgent = CHROME_LINUX) => new CookieJar({ 'x-forwarded-for': `198.51.100.${nextIp++}`, 'user-agent': userAgent });
  const account = (jar: CookieJar, accept = 'text/html') => request(jar, `${server.issuer}/account`, { headers: { accept } });
  const post = (jar: CookieJar, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    request(jar, `${server.issuer}${path}`, { method: 'POST', headers: { ...form(fields).headers, origin: server.issuer, ...headers }, body: form(fields).body });

  /** Signs `user` in through a client in `jar` (each sign-in on its own TOTP step) and returns the client's tokens. */
  async function signedIn(user: TestUser, jar: CookieJar) {
    clock.now += 31_000;
    const done = await signIn(server, jar, user, authorizeUrl(server, { scope: 'openid profile' }), clock.now);
    expect(done.status).toBe(302);
    const tokens = await exchange(server, codeFrom(done.location));
    expect(tokens.status).toBe(200);
    return tokens.body as { refresh_token: string; id_token: string };
  }

  it('sends a browser without a session through the login and back to /account', async () => {
    const user = await server.createUser({ groups: ['editors', 'testers'], name: 'Ada <Lovelace>' });
    const jar = browser();
    const first = await account(jar);
    expect(first.status).toBe(302);
    const authorize = new URL(first.location!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${server.issuer}/oauth2/v1/authorize`);
    expect(Object.fromEntries(authorize.searchParams)).toEqual({
      client_id: 'gatehouse-account',
      response_type: 'none',
      scope: 'openid',
      redirect_uri: `${server.issuer}/account/callback`,
      state: '/account',
    });

    const loginPage = await request(jar, first.location!);
    expect(loginPage.status).toBe(200);
    expect(loginPage.text).toContain('Your Gatehouse account');
    const uid = uidOf(loginPage.text);
    const mfa = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) });
    expect(mfa.status).toBe(200);
    clock.now += 31_000;
    const code = await server.app.services.totp.generate(user.totpSecret, clock.now);
    const done = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
    expect(done.status).toBe(302);
    // No code, no token: only the issuer (RFC 9207) comes back with the SSO session cookie.
    expect(done.location).toBe(`${server.issuer}/account/callback?${new URLSearchParams({ state: '/account', iss: server.issuer })}`);
    const callback = await request(jar, done.location!);
    expect(callback.status).toBe(303);
    expect(callback.location).toBe('/account');

    const page = await account(jar);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain(`<dd id="profile-username">${user.username}</dd>`);
    expect(page.text).toContain('<dd id="profile-name">Ada &lt;Lovelace&gt;</dd>');
    expect(page.text).toContain(`<dd id="profile-email">${user.username}@example.com</dd>`);
    expect(page.text).toContain('<dd id="profile-groups">editors, testers</dd>');
    const sessions = await request(jar, `${server.issuer}/account/sessions`);
    expect(sessions.status).toBe(200);
    expect(sessions.text).toContain('<strong>Chrome on Linux</strong> <span class="current">(this session)</span>');
    expect(sessions.text).toContain('· Your Gatehouse account</span>');
  });

  it('a callback carrying an error says so instead of starting the sign-in again', async () => {
    const page = await request(browser(), `${server.issuer}/account/callback?error=access_denied`);
    expect(page.status).toBe(400);
    expect(page.text).toContain('The sign-in to your account page did not complete.');
  });

  it('answers 401 login_required to JSON callers and form posts without a session', async () => {
    const jar = browser();
    const json = await account(jar, 'application/json');
    expect(json.status).toBe(401);
    expect(json.json()).toEqual({ error: 'login_required', error_description: 'You are not signed in to Gatehouse. Open your account page to sign in.' });
    for (const path of ['/account/password', '/account/totp', '/account/totp/confirm', '/account/sessions/sign-out-others']) {
      const refused = await post(jar, path, {});
      expect(refused.status, path).toBe(401);
      expect(refused.text, path).toContain('You are not signed in to Gatehouse.');
    }
  });

  it('the old devices page is a permanent redirect to the devices section', async () => {
    const moved = await request(browser(), `${server.issuer}/authenticator/devices`);
    expect(moved.status).toBe(301);
    expect(moved.location).toBe('/account/security');
  });

  it('lists the sessions with their browser and last use, this one first and marked (JSON)', async () => {
    const user = await server.createUser();
    const chromeIp = `198.51.100.${nextIp}`;
    const chrome = browser();
    await signedIn(user, chrome);
    const chromeAt = clock.now;
    const firefoxIp = `198.51.100.${nextIp}`;
    const firefox = browser(FIREFOX_WINDOWS);
    await signedIn(user, firefox);
    clock.now += 60_000;
    const listed = await account(firefox, 'application/json');
    expect(listed.status).toBe(200);
    const body = listed.json<{ username: string; totp_enrolled: boolean; sessions: { browser: string; current: boolean; last_used_at: string; clients: string[] }[] }>();
    expect(body).toMatchObject({ username: user.username, totp_enrolled: true, devices: [], passkeys: [], recovery_codes_remaining: 0 });
    expect(body.sessions).toEqual([
      { browser: 'Firefox on Windows', ip: firefoxIp, network: '198.51.100.0/24', signed_in_at: expect.any(String), last_used_at: new Date(clock.now).toISOString(), current: true, clients: ['Test App'] },
      { browser: 'Chrome on Linux', ip: chromeIp, network: '198.51.100.0/24', signed_in_at: expect.any(String), last_used_at: new Date(chromeAt).toISOString(), current: false, clients: ['Test App'] },
    ]);
  });

  describe('changing the password', () => {
    it('refuses a wrong current password, each password rule, a mismatch, and a cross-site post; none changes anything', async () => {
      const user = await server.createUser();
      const jar = browser();
      await signedIn(user, jar);
      const change = (fields: Record<string, string>, headers: Record<string, string> = {}) => post(jar, '/account/password', fields, headers);
      const good = 'a perfectly fine passphrase';

      const wrong = await change({ current_password: 'not-my-password', new_password: good, new_password_confirm: good });
      expect(wrong.status).toBe(401);
      expect(wrong.text).toContain('<h1>Security</h1>\n<div class="error" role="alert" id="error" tabindex="-1"><p>Your current password is not correct.</p><p class="muted">Error code: <code>invalid_current_password</code></p></div>');
      expect(audits('account.password_change.refused').at(-1)).toMatchObject({ reason: 'invalid_current_password' });

      const cases: [Record<string, string>, string, string][] = [
        [{ new_password: 'short pass', new_password_confirm: 'short pass' }, 'password_too_short', 'The new password must be at least 12 characters.'],
        [{ new_password: 'a         b', new_password_confirm: 'a         b' }, 'password_too_short', 'The new password must be at least 12 characters.'],
        [{ new_password: 'x'.repeat(129), new_password_confirm: 'x'.repeat(129) }, 'password_too_long', 'The new password must be at most 128 characters.'],
        [{ new_password: '1qaz2wsx3edc', new_password_confirm: '1qaz2wsx3edc' }, 'password_common', 'This password is on the list of common or breached passwords. Choose another.'],
        [{ new_password: 'Q1W2E3R4T5Y6', new_password_confirm: 'Q1W2E3R4T5Y6' }, 'password_common', 'This password is on the list of common or breached passwords. Choose another.'],
        [{ new_password: good, new_password_confirm: `${good}!` }, 'password_mismatch', 'The two new passwords do not match.'],
        [{ new_password: '', new_password_confirm: '' }, 'password_empty', 'Enter a new password.'],
      ];
      for (const [fields, code, message] of cases) {
        const refused = await change({ current_password: user.password, ...fields });
        expect(refused.status, code).toBe(400);
        expect(refused.text, code).toContain(`<div class="error" role="alert" id="error" tabindex="-1"><p>${message}</p><p class="muted">Error code: <code>${code}</code></p></div>`);
      }
      const json = await request(jar, `${server.issuer}/account/password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', origin: server.issuer },
        body: JSON.stringify({ current_password: user.password, new_password: 'short', new_password_confirm: 'short' }),
      });
      expect(json.status).toBe(400);
      expect(json.json()).toEqual({ error: 'password_too_short', error_description: 'The new password must be at least 12 characters.' });

      const crossSite = await change({ current_password: user.password, new_password: good, new_password_confirm: good }, { origin: 'https://evil.example' });
      expect(crossSite.status).toBe(403);
      expect(crossSite.text).toContain('Cross-site requests to this page are refused.');
      const fetchMetadata = await change({ current_password: user.password, new_password: good, new_password_confirm: good }, { 'sec-fetch-site': 'cross-site' });
      expect(fetchMetadata.status).toBe(403);

      // Nothing changed: the old password still signs in.
      expect(audits('account.password_changed')).toEqual([]);
      await signedIn(user, browser());
    });

    it('a new password by the rules replaces the old one, ends the OTHER sessions and their refresh tokens, and keeps this one', async () => {
      const user = await server.createUser();
      const here = browser();
      const hereTokens = await signedIn(user, here);
      const there = browser(FIREFOX_WINDOWS);
      const thereTokens = await signedIn(user, there);
      const fresh = 'correct horse battery staple';

      const changed = await post(here, '/account/password', { current_password: user.password, new_password: fresh, new_password_confirm: fresh });
      expect(changed.status).toBe(303);
      expect(changed.location).toBe('/account/security');
      const page = await request(here, `${server.issuer}${changed.location}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('<h1>Security</h1>\n<p class="notice" role="status" id="notice" tabindex="-1">Your password was changed. Your other sessions were signed out.</p>');
      // Shown once: a reload has no message.
      expect((await request(here, `${server.issuer}/account/security`)).text).not.toContain('id="notice"');

      expect((await account(there, 'application/json')).status).toBe(401);
      const refusedRefresh = await refresh(server, thereTokens.refresh_token);
      expect(refusedRefresh.status).toBe(400);
      expect(refusedRefresh.body.error).toBe('invalid_grant');
      const keptRefresh = await refresh(server, hereTokens.refresh_token);
      expect(keptRefresh.status).toBe(200);

      const event = audits('account.password_changed').at(-1);
      expect(event).toMatchObject({ account_id: expect.any(String), sessions: 1, grants: 1 });
      expect(JSON.stringify(lines)).not.toContain(fresh);

      // The old password is refused, the new one signs in.
      const jar = browser();
      const loginPage = await request(jar, authorizeUrl(server));
      const old = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid: uidOf(loginPage.text), username: user.username, password: user.password }) });
      expect(old.status).toBe(401);
      await signedIn({ ...user, password: fresh }, browser());
    });
  });

  describe('re-enrolling TOTP', () => {
    const secretOf = (html: string) => /<code id="new-totp-secret">([A-Z2-7]+)<\/code>/.exec(html)?.[1];
    const enrollmentPage = (jar: CookieJar) => request(jar, `${server.issuer}/account/security/totp`);

    it('needs a current code first; the pending key is the same on every view until a code of it replaces the old one', async () => {
      const user = await server.createUser();
      const jar = browser();
      await signedIn(user, jar);
      const id = (await server.app.services.accounts.findByUsername(user.username))!.id;
      await server.app.services.recoveryCodes.replace(id);

      const wrong = await post(jar, '/account/totp', { code: '000000' });
      expect(wrong.status).toBe(401);
      expect(wrong.text).toContain('This code is not correct. Enter the current code of your authenticator app.');
      expect(wrong.text).toContain('Error code: <code>invalid_code</code>');
      expect(audits('account.totp_reenroll.refused').at(-1)).toMatchObject({ step: 'current', reason: 'invalid_code' });
      expect((await enrollmentPage(jar)).location).toBe('/account/security');

      // The code of the sign-in's step was used by the sign-in: replayed.
      const replayed = await post(jar, '/account/totp', { code: await server.app.services.totp.generate(user.totpSecret, clock.now) });
      expect(replayed.status).toBe(401);
      expect(replayed.text).toContain('Error code: <code>code_replayed</code>');

      clock.now += 31_000;
      const started = await post(jar, '/account/totp', { code: await server.app.services.totp.generate(user.totpSecret, clock.now) });
      expect(started.status).toBe(303);
      expect(started.location).toBe('/account/security/totp');
      const shown = await enrollmentPage(jar);
      expect(shown.status).toBe(200);
      expect(shown.text).toContain('<svg');
      const secret = secretOf(shown.text)!;
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      // A reload, and proving the current factor again, show the same key.
      expect(secretOf((await enrollmentPage(jar)).text)).toBe(secret);
      clock.now += 31_000;
      expect((await post(jar, '/account/totp', { code: await server.app.services.totp.generate(user.totpSecret, clock.now) })).status).toBe(303);
      expect(secretOf((await enrollmentPage(jar)).text)).toBe(secret);
      // Nothing changed yet; the secret is kept sealed, never in the clear.
      expect(await server.app.services.accounts.getTotpSecret(id)).toBe(user.totpSecret);
      const row = await server.database.db.selectFrom('totp_enrollments').selectAll().where('account_id', '=', id).executeTakeFirstOrThrow();
      expect(row.secret_sealed).not.toContain(secret);

      const badConfirm = await post(jar, '/account/totp/confirm', { code: await server.app.services.totp.generate(user.totpSecret, clock.now + 60_000) });
      expect(badConfirm.status).toBe(401);
      expect(badConfirm.text).toContain('This code is not correct. Enter the code your new authenticator app shows now.');
      expect(secretOf(badConfirm.text)).toBe(secret);

      const code = await server.app.services.totp.generate(secret, clock.now);
      const confirmed = await post(jar, '/account/totp/confirm', { code: `${code.slice(0, 3)} ${code.slice(3)}` });
      expect(confirmed.status).toBe(303);
      expect(confirmed.location).toBe('/account/security');
      expect(await server.app.services.accounts.getTotpSecret(id)).toBe(secret);
      expect(await server.app.services.totpEnrollments.pendingSecret(id)).toBeUndefined();
      expect(audits('account.totp_reenrolled').at(-1)).toEqual(expect.objectContaining({ account_id: id }));
      expect(JSON.stringify(lines)).not.toContain(secret);
      expect((await enrollmentPage(jar)).location).toBe('/account/security');
      const late = await post(jar, '/account/totp/confirm', { code });
      expect(late.status).toBe(400);
      expect(late.text).toContain('<p>This set-up has expired. Start again with your current authenticator app.</p><p class="muted">Error code: <code>invalid_enrollment</code></p>');

      // The old app's codes no longer sign in; the new one's do.
      await signedIn({ ...user, totpSecret: secret }, browser());
    });

    it('Cancel drops the pending key: the next set-up shows a new one; another account never sees it', async () => {
      const user = await server.createUser();
      const other = await server.createUser();
      const jar = browser();
      const otherJar = browser();
      await signedIn(user, jar);
      await signedIn(other, otherJar);
      clock.now += 31_000;
      await post(jar, '/account/totp', { code: await server.app.services.totp.generate(user.totpSecret, clock.now) });
      const first = secretOf((await enrollmentPage(jar)).text)!;
      expect((await enrollmentPage(otherJar)).location).toBe('/account/security');
      const foreign = await post(otherJar, '/account/totp/confirm', { code: await server.app.services.totp.generate(first, clock.now) });
      expect(foreign.status).toBe(400);
      expect(foreign.text).toContain('Error code: <code>invalid_enrollment</code>');

      const cancelled = await post(jar, '/account/totp/cancel', {});
      expect(cancelled.status).toBe(303);
      expect(cancelled.location).toBe('/account/security');
      expect((await request(jar, `${server.issuer}/account/security`)).text).toContain('id="notice" tabindex="-1">The new authenticator app was not set up. Your current one keeps working.</p>');
      clock.now += 31_000;
      await post(jar, '/account/totp', { code: await server.app.services.totp.generate(user.totpSecret, clock.now) });
      expect(secretOf((await enrollmentPage(jar)).text)).not.toBe(first);
    });

    it('takes a recovery code instead of a current code, once; without recovery codes left, ten new ones follow the confirmation', async () => {
      const user = await server.createUser();
      const jar = browser();
      await signedIn(user, jar);
      const id = (await server.app.services.accounts.findByUsername(user.username))!.id;
      const [code] = await server.app.services.recoveryCodes.replace(id);
      const started = await post(jar, '/account/totp', { code: code! });
      expect(started.status).toBe(303);
      const again = await post(jar, '/account/totp', { code: code! });
      expect(again.status).toBe(401);
      expect(again.text).toContain('Error code: <code>invalid_code</code>');
      const secret = secretOf((await enrollmentPage(jar)).text)!;
      await server.database.db.updateTable('recovery_codes').set({ used_at: clock.now }).where('account_id', '=', id).execute();
      expect(await server.app.services.recoveryCodes.remaining(id)).toBe(0);
      const confirmed = await post(jar, '/account/totp/confirm', { code: await server.app.services.totp.generate(secret, clock.now) });
      expect(confirmed.status).toBe(201);
      expect(confirmed.text).toContain('<h1>New recovery codes</h1>');
      expect(await server.app.services.recoveryCodes.remaining(id)).toBe(10);
    });

    it('asks for the current password when the account has no TOTP yet', async () => {
      const user = await server.createUser();
      const jar = browser();
      await signedIn(user, jar);
      const id = (await server.app.services.accounts.findByUsername(user.username))!.id;
      await server.app.services.accounts.setTotpSecret(id, null);
      const page = await request(jar, `${server.issuer}/account/security`);
      expect(page.text).toContain('No authenticator app is set up yet; confirm with your password.');
      const wrong = await post(jar, '/account/totp', { current_password: 'nope' });
      expect(wrong.status).toBe(401);
      expect(wrong.text).toContain('Error code: <code>invalid_current_password</code>');
      const started = await post(jar, '/account/totp', { current_password: user.password });
      expect(started.status).toBe(303);
      const secret = secretOf((await enrollmentPage(jar)).text)!;
      const confirmed = await post(jar, '/account/totp/confirm', { code: await server.app.services.totp.generate(secret, clock.now) });
      expect([201, 303]).toContain(confirmed.status);
      expect(await server.app.services.accounts.getTotpSecret(id)).toBe(secret);
    });
  });

  describe('signing out the other sessions', () => {
    it('ends the other browsers’ SSO sessions and refresh tokens, keeps this one, and is refused cross-site', async () => {
      const user = await server.createUser();
      const a = browser();
      const aTokens = await signedIn(user, a);
      const b = browser(FIREFOX_WINDOWS);
      const bTokens = await signedIn(user, b);

      const crossSite = await post(a, '/account/sessions/sign-out-others', {}, { origin: 'https://evil.example' });
      expect(crossSite.status).toBe(403);
      expect((await account(b, 'application/json')).status).toBe(200);

      const done = await post(a, '/account/sessions/sign-out-others', {});
      expect(done.status).toBe(303);
      expect(done.location).toBe('/account/sessions');
      expect((await request(a, `${server.issuer}/account/sessions`)).text).toContain('<p class="notice" role="status" id="notice" tabindex="-1">Your other sessions were signed out.</p>');
      expect(audits('account.sessions.signed_out').at(-1)).toMatchObject({ sessions: 1, grants: 1 });

      const bPage = await account(b);
      expect(bPage.status).toBe(302);
      expect(bPage.location).toContain('client_id=gatehouse-account');
      // B's next authorization needs a sign-in: the login page, not a code.
      const bAuthorize = await request(b, authorizeUrl(server));
      expect(bAuthorize.status).toBe(200);
      expect(bAuthorize.text).toContain('name="uid"');
      const bRefresh = await refresh(server, bTokens.refresh_token);
      expect(bRefresh.status).toBe(400);
      expect(bRefresh.body.error).toBe('invalid_grant');

      const aRefresh = await refresh(server, aTokens.refresh_token);
      expect(aRefresh.status).toBe(200);
      const aList = (await account(a, 'application/json')).json<{ sessions: { current: boolean }[] }>();
      expect(aList.sessions).toEqual([expect.objectContaining({ current: true })]);
      const rows = await server.database.db.selectFrom('session_meta').select('account_id').where('account_id', '=', (await server.app.services.accounts.findByUsername(user.username))!.id).execute();
      expect(rows).toHaveLength(1);
    });
  });
});
