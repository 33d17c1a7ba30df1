/**
 * The account page as a small app, over HTTP on SQLite and PostgreSQL: one page per section with
 * its navigation, the message of an action at the top of the section it belongs to (once), the
 * way back to the app the user came from (never an address the client did not register), a
 * confirmation page before each destructive action, a fresh sign-in before security changes
 * (the injected clock moves past AUTH_ACCOUNT_REAUTH_MAX_AGE), and one session ended at a time
 * with its address and network.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDateTime } from '@gatehouse/html/i18n';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { captureLogger } from '../support/push.ts';
import { authorizeUrl, codeFrom, CookieJar, exchange, form, refresh, request, signIn, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';

const CHROME_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const PUBLIC_KEY = { kty: 'EC' as const, crv: 'P-256' as const, x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' };

describe.each(TEST_ENGINES)('the account sections on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  const { logger, audits } = captureLogger();
  let nextIp = 1;

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, env: { TRUST_PROXY: 'true' }, logger });
  });
  afterAll(() => server.close());

  const browser = (ip = `203.0.113.${nextIp++}`) => new CookieJar({ 'x-forwarded-for': ip, 'user-agent': CHROME_LINUX });
  const get = (jar: CookieJar, path: string, accept = 'text/html') => request(jar, `${server.issuer}${path}`, { headers: { accept } });
  const post = (jar: CookieJar, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    request(jar, `${server.issuer}${path}`, { method: 'POST', headers: { ...form(fields).headers, origin: server.issuer, ...headers }, body: form(fields).body });
  const accountId = async (user: TestUser) => (await server.app.services.accounts.findByUsername(user.username))!.id;

  async function signedIn(user: TestUser, jar: CookieJar) {
    clock.now += 31_000;
    const done = await signIn(server, jar, user, authorizeUrl(server, { scope: 'openid profile' }), clock.now);
    expect(done.status).toBe(302);
    const tokens = await exchange(server, codeFrom(done.location));
    expect(tokens.status).toBe(200);
    return tokens.body as { refresh_token: string };
  }

  it('has one page per section with the navigation, the current one marked, a sign-out and no back link by default', async () => {
    const user = await server.createUser();
    const jar = browser();
    await signedIn(user, jar);
    const titles = { '/account': 'Your account', '/account/security': 'Security', '/account/sessions': 'Sessions', '/account/apps': 'Apps' };
    for (const [path, title] of Object.entries(titles)) {
      const page = await get(jar, path);
      expect(page.status, path).toBe(200);
      expect(page.text, path).toContain(`<h1>${title}</h1>`);
      expect(page.text, path).toContain(`<a href="${path}" id="nav-${path === '/account' ? 'profile' : path.slice('/account/'.length)}" aria-current="page">`);
      expect(page.text.match(/aria-current="page"/g), path).toHaveLength(1);
      expect(page.text, path).toContain('<a href="/oauth2/v1/logout" id="sign-out">Sign out</a>');
      expect(page.text, path).not.toContain('id="back-to-app"');
    }
  });

  describe('the way back to the app', () => {
    it('keeps a registered address of the client and shows it on every section, named by the client', async () => {
      const user = await server.createUser();
      const jar = browser();
      await signedIn(user, jar);
      const first = await get(jar, `/account?${new URLSearchParams({ client_id: 'test-app', return_to: 'http://127.0.0.1:9/' })}`);
      expect(first.status).toBe(200);
      expect(first.text).toContain('<a href="http://127.0.0.1:9/" id="back-to-app">Back to Test App</a>');
      const later = await get(jar, '/account/sessions');
      expect(later.text).toContain('<a href="http://127.0.0.1:9/" id="back-to-app">Back to Test App</a>');
      const exact = await get(jar, `/account?${new URLSearchParams({ client_id: 'test-app', return_to: 'http://127.0.0.1:9/callback' })}`);
      expect(exact.text).toContain('<a href="http://127.0.0.1:9/callback" id="back-to-app">Back to Test App</a>');
    });

    it('refuses any other address, an unknown client and a forged cookie: no link, nothing kept', async () => {
      const user = await server.createUser();
      const jar = browser();
      await signedIn(user, jar);
      const refused: [string, string][] = [
        ['test-app', 'https://evil.example/'],
        ['test-app', 'http://127.0.0.1:9/elsewhere'],
        ['test-app', 'http://127.0.0.1:9'],
        ['test-app', '//evil.example/'],
        ['test-app', 'javascript:alert(1)'],
        ['test-app', 'http://127.0.0.1:9@evil.example/'],
        ['no-such-app', 'http://127.0.0.1:9/'],
        ['api', 'http://127.0.0.1:9/'],
      ];
      for (const [clientId, returnTo] of refused) {
        const page = await get(jar, `/account?${new URLSearchParams({ client_id: clientId, return_to: returnTo })}`);
        expect(page.status, returnTo).toBe(200);
        expect(page.text, `${clientId} ${returnTo}`).not.toContain('id="back-to-app"');
        expect(jar.cookies.get('gatehouse.account.return'), returnTo).toBeUndefined();
      }
      jar.cookies.set('gatehouse.account.return', `${Buffer.from(JSON.stringify({ clientId: 'test-app', url: 'https://evil.example/' })).toString('base64url')}.forged`);
      expect((await get(jar, '/account')).text).not.toContain('id="back-to-app"');
    });

    it('survives the sign-in: kept before the login, shown after it', async () => {
      const user = await server.createUser();
      const jar = browser();
      const start = await get(jar, `/account/apps?${new URLSearchParams({ client_id: 'test-app', return_to: 'http://127.0.0.1:9/' })}`);
      expect(start.status).toBe(302);
      expect(new URL(start.location!).searchParams.get('state')).toBe('/account/apps');
      clock.now += 31_000;
      const done = await signIn(server, jar, user, start.location!, clock.now);
      expect(done.status).toBe(302);
      const callback = await request(jar, done.location!);
      expect(callback.status).toBe(303);
      expect(callback.location).toBe('/account/apps');
      expect((await get(jar, '/account/apps')).text).toContain('<a href="http://127.0.0.1:9/" id="back-to-app">Back to Test App</a>');
    });

    it('the sign-in callback only follows a path under /account', async () => {
      const jar = browser();
      for (const state of ['https://evil.example/', '//evil.example/account', '/account/../admin', '/admin', '/account/callback', '/account\\x']) {
        const callback = await get(jar, `/account/callback?${new URLSearchParams({ state })}`);
        expect(callback.status, state).toBe(303);
        expect(callback.location, state).toBe('/account');
      }
    });
  });

  describe('confirmations', () => {
    it('removing a device: the page names it and what happens, Cancel goes back, Confirm removes it and says so at the top of Security', async () => {
      const user = await server.createUser();
      const jar = browser();
      await signedIn(user, jar);
      const device = await server.app.services.devices.create({ accountId: await accountId(user), name: 'Work phone', publicKey: PUBLIC_KEY });
      const security = await get(jar, '/account/security');
      expect(security.text).toContain(`<form method="get" action="/account/security/devices/remove"><input type="hidden" name="device_id" value="${device.id}"><button type="submit" class="danger" aria-label="Remove Work phone">Remove</button></form>`);
      const confirm = await get(jar, `/account/security/devices/remove?device_id=${device.id}`);
      expect(confirm.status).toBe(200);
      expect(confirm.text).toContain('<h1>Remove this device?</h1>');
      expect(confirm.text).toContain('<strong id="confirm-subject">Work phone</strong>');
      expect(confirm.text).toContain('This device will no longer be able to approve your sign-ins with a push.');
      expect(confirm.text).toContain(`<form method="post" action="/authenticator/devices/remove">\n<input type="hidden" name="device_id" value="${device.id}">\n<button type="submit" class="danger" id="confirm">Remove the device</button>`);
      expect(confirm.text).toContain('<a href="/account/security" id="cancel">Cancel</a>');
      // Showing the page changed nothing.
      expect(await server.app.services.devices.listByAccount(await accountId(user))).toHaveLength(1);

      const removed = await post(jar, '/authenticator/devices/remove', { device_id: device.id });
      expect(removed.status).toBe(303);
      expect(removed.location).toBe('/account/security');
      expect((await get(jar, '/account/security')).text).toContain('<h1>Security</h1>\n<p class="notice" role="status" id="notice" tabindex="-1">The device was removed: it can no longer approve your sign-ins.</p>');
      expect(await server.app.services.devices.listByAccount(await accountId(user))).toEqual([]);

      const gone = await get(jar, `/account/security/devices/remove?device_id=${device.id}`);
      expect(gone.status).toBe(303);
      expect(gone.location).toBe('/account/security');
      expect((await get(jar, '/account/security')).text).toContain('<div class="error" role="alert" id="error" tabindex="-1"><p>This device is not on your account. Nothing was removed.</p><p class="muted">Error code: <code>not_found</code></p></div>');
    });

    it('the messages of removing a device or a passkey, revoking an app and a refused sign-out are in the reader\'s language', async () => {
      const user = await server.createUser();
      const jar = browser();
      await signedIn(user, jar);
      const id = await accountId(user);
      const device = await server.app.services.devices.create({ accountId: id, name: 'Diensthandy', publicKey: PUBLIC_KEY });
      await server.app.services.passkeys.add({ id: 'cred-de', accountId: id, name: 'YubiKey', publicKey: new Uint8Array([1, 2, 3]), counter: 0, transports: [], deviceType: 'singleDevice', backedUp: false });
      await server.app.services.consents.allow(id, 'test-app', { scopes: ['openid'] });
      const german = { 'accept-language': 'de' };
      const notice = async (path: string) => /<p class="(?:notice|error)" role="(?:status|alert)" id="(?:notice|error)" tabindex="-1">([^<]*)<\/p>/.exec((await request(jar, `${server.issuer}${path}`, { headers: { accept: 'text/html', ...german } })).text)?.[1];

      expect((await get(jar, `/account/security/devices/remove?device_id=${device.id}`)).text).toContain('<section class="confirm" aria-label="Confirm">');
      const confirm = await request(jar, `${server.issuer}/account/security/devices/remove?device_id=${device.id}`, { headers: { accept: 'text/html', ...german } });
      expect(confirm.text).toContain('<section class="confirm" aria-label="Bestätigen">');
      expect((await post(jar, '/authenticator/devices/remove', { device_id: device.id }, german)).status).toBe(303);
      expect(await notice('/account/security')).toBe('Das Gerät wurde entfernt: Es kann Ihre Anmeldungen nicht mehr bestätigen.');
      expect((await post(jar, '/authenticator/passkeys/remove', { credential_id: 'cred-de' }, german)).status).toBe(303);
      expect(await notice('/account/security')).toBe('Der Passkey wurde entfernt: Er meldet Sie nicht mehr an.');
      expect((await post(jar, '/account/apps/revoke', { client_id: 'test-app' }, german)).status).toBe(303);
      expect(await notice('/account/apps')).toBe('Der Zugriff der Anwendung wurde widerrufen. Ihre Anmeldungen und Refresh-Tokens sind beendet.');
      expect((await post(jar, '/account/sessions/end', { session: 'no-such-session' }, german)).status).toBe(303);
      const refused = await request(jar, `${server.issuer}/account/sessions`, { headers: { accept: 'text/html', ...german } });
      expect(refused.text).toContain('<div class="error" role="alert" id="error" tabindex="-1"><p>Diese Sitzung ist schon beendet oder gehört nicht Ihnen. Es wurde nichts abgemeldet.</p><p class="muted">Fehlercode: <code>not_found</code></p></div>');
      expect(refused.text).not.toContain('{{missing:');
    });

    it("another account's device, passkey or session has no confirmation page", async () => {
      const owner = await server.createUser();
      const other = await server.createUser();
      const ownerJar = browser();
      const otherJar = browser();
      await signedIn(owner, ownerJar);
      await signedIn(other, otherJar);
      const device = await server.app.services.devices.create({ accountId: await accountId(owner), name: 'Owner phone', publicKey: PUBLIC_KEY });
      const ownerSessions = (await get(ownerJar, '/account', 'application/json')).json<{ sessions: unknown[] }>();
      expect(ownerSessions.sessions).toHaveLength(1);
      const ownerUid = (await server.app.services.userSessions.list(await accountId(owner)))[0]!.uid!;
      for (const path of [`/account/security/devices/remove?device_id=${device.id}`, '/account/security/passkeys/remove?credential_id=abc', `/account/sessions/end?session=${ownerUid}`, '/account/security/links/remove?provider=corp']) {
        const page = await get(otherJar, path);
        expect(page.status, path).toBe(303);
      }
      const refused = await post(otherJar, '/account/sessions/end', { session: ownerUid });
      expect(refused.status).toBe(303);
      expect((await get(otherJar, '/account/sessions')).text).toContain('This session has already ended or is not one of yours. Nothing was signed out.');
      expect((await get(ownerJar, '/account', 'application/json')).status).toBe(200);
    });

    it('removing a passkey, new recovery codes and signing out the other sessions each have their page', async () => {
      const user = await server.createUser();
      const jar = browser();
      await signedIn(user, jar);
      const id = await accountId(user);
      await server.app.services.passkeys.add({ id: 'cred-1', accountId: id, name: 'YubiKey', publicKey: new Uint8Array([1, 2, 3]), counter: 0, transports: [], deviceType: 'singleDevice', backedUp: false });
      await server.app.services.recoveryCodes.replace(id);

      const passkey = await get(jar, '/account/security/passkeys/remove?credential_id=cred-1');
      expect(passkey.status).toBe(200);
      expect(passkey.text).toContain('<h1>Remove this passkey?</h1>');
      expect(passkey.text).toContain('<strong id="confirm-subject">YubiKey</strong>');
      expect(passkey.text).toContain('<form method="post" action="/authenticator/passkeys/remove">\n<input type="hidden" name="credential_id" value="cred-1">');
      const removed = await post(jar, '/authenticator/passkeys/remove', { credential_id: 'cred-1' });
      expect(removed.status).toBe(303);
      expect((await get(jar, '/account/security')).text).toContain('id="notice" tabindex="-1">The passkey was removed: it no longer signs you in.</p>');

      const codes = await get(jar, '/account/security/recovery-codes');
      expect(codes.status).toBe(200);
      expect(codes.text).toContain('<h1>Create new recovery codes?</h1>');
      expect(codes.text).toContain('You get 10 new recovery codes. Your 10 unused recovery codes stop working at once, so keep the new ones somewhere safe.');
      expect(codes.text).toContain('<form method="post" action="/authenticator/recovery-codes">');
      expect(await server.app.services.recoveryCodes.remaining(id)).toBe(10);

      const alone = await get(jar, '/account/sessions/sign-out-others');
      expect(alone.text).toContain('0 other sessions end, with the app sign-ins they hold');
      await signedIn(user, browser());
      const others = await get(jar, '/account/sessions/sign-out-others');
      expect(others.status).toBe(200);
      expect(others.text).toContain('<h1>Sign out all other sessions?</h1>');
      expect(others.text).toContain('1 other session ends, with the app sign-ins they hold: those browsers must sign in again. This browser stays signed in.');
      expect(others.text).toContain('<form method="post" action="/account/sessions/sign-out-others">');
      expect(others.text).toContain('<a href="/account/sessions" id="cancel">Cancel</a>');
    });

    it('unlinking a provider has its page', async () => {
      const user = await server.createUser();
      const jar = browser();
      await signedIn(user, jar);
      await server.app.services.accountLinks.create({ provider: 'corp', subject: `s-${user.username}`, accountId: await accountId(user) });
      const page = await get(jar, '/account/security/links/remove?provider=corp');
      expect(page.status).toBe(200);
      expect(page.text).toContain('<h1>Remove this sign-in provider?</h1>');
      expect(page.text).toContain('corp will no longer sign you in to this account.');
      expect(page.text).toContain('<form method="post" action="/account/links/remove">\n<input type="hidden" name="provider" value="corp">');
      const done = await post(jar, '/account/links/remove', { provider: 'corp' });
      expect(done.status).toBe(303);
      expect(done.location).toBe('/account/security');
      expect((await get(jar, '/account/security')).text).toContain('id="notice" tabindex="-1">The provider was unlinked: it no longer signs you in here.</p>');
    });
  });

  describe('a fresh sign-in before security changes', () => {
    it('a sign-in older than AUTH_ACCOUNT_REAUTH_MAX_AGE is sent through the login again and comes back to the action', async () => {
      const user = await server.createUser();
      const jar = browser();
      await signedIn(user, jar);
      const id = await accountId(user);
      await server.app.services.recoveryCodes.replace(id);
      // The login time has one-second precision: just inside the window, then just past it.
      clock.now += 599_000;
      expect((await get(jar, '/account/security/recovery-codes')).status).toBe(200);

      clock.now += 2_000;
      const stale = await get(jar, '/account/security/recovery-codes');
      expect(stale.status).toBe(302);
      const url = new URL(stale.location!);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        client_id: 'gatehouse-account',
        response_type: 'none',
        scope: 'openid',
        redirect_uri: `${server.issuer}/account/callback`,
        state: '/account/security/recovery-codes',
        max_age: '600',
        prompt: 'login',
      });
      // The action itself does nothing while stale: a form is sent to the same sign-in, JSON is 401.
      const before = await server.app.services.recoveryCodes.remaining(id);
      const posted = await post(jar, '/authenticator/recovery-codes', {});
      expect(posted.status).toBe(303);
      expect(new URL(posted.location!).searchParams.get('prompt')).toBe('login');
      expect(new URL(posted.location!).searchParams.get('state')).toBe('/account/security');
      const json = await request(jar, `${server.issuer}/authenticator/recovery-codes`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', origin: server.issuer }, body: '{}' });
      expect(json.status).toBe(401);
      expect(json.json()).toEqual({ error: 'reauth_required', error_description: 'This change needs a sign-in from the last 10 minutes. Sign in again on your account page.' });
      for (const path of ['/account/totp', '/authenticator/devices/enroll', '/authenticator/devices/remove', '/authenticator/passkeys/remove']) {
        const refused = await post(jar, path, { code: '123456', device_id: 'x', credential_id: 'x' });
        expect(refused.status, path).toBe(303);
        expect(new URL(refused.location!).searchParams.get('prompt'), path).toBe('login');
      }
      expect(await server.app.services.recoveryCodes.remaining(id)).toBe(before);
      // Reading the account is not a security change.
      const security = await get(jar, '/account/security');
      expect(security.status).toBe(200);
      // The passkey form's way on, which its script shows when adding one is refused as stale.
      const reauth = /<p id="passkey-reauth" data-passkey-reauth hidden>Adding a passkey needs a recent sign-in, and yours is older\. Sign in again, then add the passkey here\. <a href="([^"]+)" id="passkey-reauth-link">Sign in again<\/a><\/p>/.exec(security.text);
      expect(reauth).not.toBeNull();
      const again = new URL(reauth![1]!.replaceAll('&amp;', '&'));
      expect(`${again.origin}${again.pathname}`).toBe(`${server.issuer}/oauth2/v1/authorize`);
      expect(Object.fromEntries(again.searchParams)).toEqual({ ...Object.fromEntries(url.searchParams), state: '/account/security#passkeys' });

      // The login page asks for the password again although the session is live.
      const login = await request(jar, stale.location!);
      expect(login.status).toBe(200);
      const uid = uidOf(login.text);
      expect((await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) })).status).toBe(200);
      clock.now += 31_000;
      const done = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code: await server.app.services.totp.generate(user.totpSecret, clock.now) }) });
      expect(done.status).toBe(302);
      const back = await request(jar, done.location!);
      expect(back.status).toBe(303);
      expect(back.location).toBe('/account/security/recovery-codes');
      const fresh = await get(jar, back.location!);
      expect(fresh.status).toBe(200);
      expect(fresh.text).toContain('<h1>Create new recovery codes?</h1>');
      const made = await post(jar, '/authenticator/recovery-codes', {});
      expect(made.status).toBe(201);
    });
  });

  describe('sessions one at a time', () => {
    it('tells two Chrome on Linux sessions apart and ends one, keeping this one and the third', async () => {
      const user = await server.createUser();
      const here = browser('203.0.113.7');
      await signedIn(user, here);
      const hereAt = clock.now;
      const work = browser('198.51.100.23');
      const workTokens = await signedIn(user, work);
      const home = browser('2001:db8:1:2::5');
      const homeTokens = await signedIn(user, home);

      const page = await get(here, '/account/sessions');
      expect(page.status).toBe(200);
      expect(page.text).toContain('<strong>Chrome on Linux</strong> <span class="current">(this session)</span><br><span class="muted">from <span class="session-ip">203.0.113.7</span> (network 203.0.113.0/24)</span>');
      expect(page.text).toContain('from <span class="session-ip">198.51.100.23</span> (network 198.51.100.0/24)');
      expect(page.text).toContain('from <span class="session-ip">2001:db8:1:2::5</span> (network 2001:db8:1::/48)');
      // One form for every time (@gatehouse/html/i18n timeElement): relative, the absolute time in its title.
      // (a session's sign-in time is kept in whole seconds)
      const signedInAt = Math.floor(hereAt / 1000) * 1000;
      expect(page.text).toContain(`signed in <time datetime="${new Date(signedInAt).toISOString()}" data-local="relative" title="${formatDateTime(signedInAt, 'en')}">`);
      const workUid = (await server.app.services.sessionMeta.find((await server.app.services.userSessions.list(await accountId(user))).flatMap((s) => (s.uid ? [s.uid] : [])))).find((m) => m.ip === '198.51.100.23')!.sessionUid;
      expect(page.text).toContain(`<form method="get" action="/account/sessions/end"><input type="hidden" name="session" value="${workUid}"><button type="submit" class="danger" aria-label="Sign out Chrome on Linux, last used`);

      const confirm = await get(here, `/account/sessions/end?session=${workUid}`);
      expect(confirm.status).toBe(200);
      expect(confirm.text).toContain('<h1>Sign out this session?</h1>');
      expect(confirm.text).toContain('<strong id="confirm-subject">Chrome on Linux from 198.51.100.23</strong>');
      const german = await request(here, `${server.issuer}/account/sessions/end?session=${workUid}`, { headers: { accept: 'text/html', 'accept-language': 'de' } });
      expect(german.text).toContain('<strong id="confirm-subject">Chrome unter Linux von 198.51.100.23</strong>');
      expect(confirm.text).toContain(`<form method="post" action="/account/sessions/end">\n<input type="hidden" name="session" value="${workUid}">`);

      const crossSite = await post(here, '/account/sessions/end', { session: workUid }, { origin: 'https://evil.example' });
      expect(crossSite.status).toBe(403);
      const ended = await post(here, '/account/sessions/end', { session: workUid });
      expect(ended.status).toBe(303);
      expect(ended.location).toBe('/account/sessions');
      expect(audits('account.session.signed_out').at(-1)).toMatchObject({ account_id: await accountId(user), grants: 1 });
      const after = await get(here, '/account/sessions');
      expect(after.text).toContain('<h1>Sessions</h1>\n<p class="notice" role="status" id="notice" tabindex="-1">The session was signed out. That browser must sign in again.</p>');
      expect(after.text).not.toContain('198.51.100.23');
      expect(after.text).toContain('2001:db8:1:2::5');

      expect((await get(work, '/account')).status).toBe(302);
      expect((await refresh(server, workTokens.refresh_token)).body.error).toBe('invalid_grant');
      expect((await get(home, '/account', 'application/json')).status).toBe(200);
      expect((await refresh(server, homeTokens.refresh_token)).status).toBe(200);

      // This session is not ended here.
      const hereUid = (await server.app.services.sessionMeta.find((await server.app.services.userSessions.list(await accountId(user))).flatMap((s) => (s.uid ? [s.uid] : [])))).find((m) => m.ip === '203.0.113.7')!.sessionUid;
      const self = await post(here, '/account/sessions/end', { session: hereUid });
      expect(self.status).toBe(303);
      expect((await get(here, '/account/sessions')).text).toContain('<p>This is the session you are using. To end it, use Sign out.</p>');
      expect((await get(here, '/account', 'application/json')).status).toBe(200);
    });
  });
});

