import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { generateKeyPair, SignJWT } from 'jose';
import { CookieJar, form, request, startTestAuthServer, type HttpResponse, type TestAuthServer, type TestUser } from '@gatehouse/auth/testing';
import { hiddenField, startClient, type ClientHarness } from '../support/client-harness.ts';
import { startStubApi, type StubApi } from '../support/stub-api.ts';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

let auth: TestAuthServer;
let api: StubApi;
let appOne: ClientHarness;
let appTwo: ClientHarness;
/** Milliseconds added to the real time on the authorization server's clock. */
let authOffsetMs = 0;

beforeAll(async () => {
  auth = await startTestAuthServer({ clock: () => Date.now() + authOffsetMs });
  api = await startStubApi({ issuer: auth.issuer, audience: auth.audience });
  appOne = await startClient({ auth, apiUrl: api.url, backchannel: true });
  // app-two checks the SSO session only once a minute: only the back-channel can sign it out at once.
  appTwo = await startClient({ auth, apiUrl: api.url, backchannel: true, env: { CLIENT_SSO_CHECK_INTERVAL: '60' } });
});

afterAll(async () => {
  await appOne?.close();
  await appTwo?.close();
  await api?.close();
  await auth?.close();
});

/** Signs in to app-one, then to app-two in the same browser (SSO): both show the signed-in page. */
async function signedInToBoth(user?: TestUser): Promise<{ jar: CookieJar; user: TestUser }> {
  const jar = new CookieJar();
  const who = user ?? (await auth.createUser());
  await appOne.login(jar, who);
  await ssoInto(appTwo, jar);
  for (const app of [appOne, appTwo]) expect((await app.get(jar, '/')).status).toBe(200);
  return { jar, user: who };
}

/** Signs in to `app` with the browser's SSO session (no login page). */
async function ssoInto(app: ClientHarness, jar: CookieJar): Promise<void> {
  const start = await app.get(jar, '/');
  expect(start.status).toBe(302);
  const authorize = await request(jar, start.location!);
  expect(authorize.status).toBe(302);
  const callback = await request(jar, authorize.location!);
  expect(callback.status).toBe(302);
}

/** The landing page of a signed-out browser sends it to the authorization endpoint. */
async function expectSignedOut(app: ClientHarness, jar: CookieJar): Promise<void> {
  const page = await app.get(jar, '/');
  expect(page.status).toBe(302);
  expect(new URL(page.location!).pathname).toBe('/oauth2/v1/authorize');
}

async function signOutInAppOne(jar: CookieJar): Promise<HttpResponse> {
  const csrf = hiddenField((await appOne.get(jar, '/')).text, '_csrf');
  const logout = await appOne.post(jar, '/logout', { _csrf: csrf });
  expect(logout.status).toBe(302);
  const page = await request(jar, logout.location!);
  expect(page.status).toBe(200);
  const action = /<form[^>]+action="([^"]+)"/.exec(page.text)![1]!;
  return request(jar, new URL(action, auth.issuer).href, { method: 'POST', ...form({ xsrf: hiddenField(page.text, 'xsrf'), logout: 'yes' }) });
}

async function accountIdOf(user: TestUser): Promise<string> {
  return (await auth.app.services.accounts.findByUsername(user.username))!.id;
}

async function adminToken(): Promise<string> {
  const clientId = `admin-${randomUUID().slice(0, 8)}`;
  const clientSecret = randomUUID();
  await auth.app.services.clients.create({ clientId, name: clientId, redirectUris: [], grantTypes: ['client_credentials'], clientSecret });
  await auth.app.services.scopePolicies.setClientScopes(clientId, ['admin:users:write']);
  const response = await fetch(`${auth.issuer}/oauth2/v1/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'admin:users:write' }),
  });
  expect(response.status).toBe(200);
  return String(((await response.json()) as { access_token: string }).access_token);
}

async function metric(name: string, outcome: string): Promise<number> {
  const values = (await auth.app.metrics.getSingleMetric(name)?.get())?.values ?? [];
  return values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

/** The list items a sign-out page shows for these apps: their names in alphabetical order. */
const items = (...apps: ClientHarness[]) =>
  apps
    .map((app) => app.config.clientId)
    .sort((a, b) => a.localeCompare(b, 'en'))
    .map((name) => `<li>${name}</li>`)
    .join('');

function postLogoutToken(app: ClientHarness, token: string): Promise<Response> {
  return fetch(`${app.url}/backchannel-logout`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ logout_token: token }) });
}

describe('back-channel logout', () => {
  it('discovery advertises back-channel logout with sid', async () => {
    const discovery = (await (await fetch(`${auth.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery.backchannel_logout_supported).toBe(true);
    expect(discovery.backchannel_logout_session_supported).toBe(true);
  });

  it('signing out in app-one signs app-two out before its next request, in the same second', async () => {
    const { jar } = await signedInToBoth();
    const before = await metric('auth_backchannel_logouts_total', 'delivered');
    const done = await signOutInAppOne(jar);
    expect(done.status).toBe(303);
    // app-two was signed out too: the browser lands on the page that says so, not straight back in app-one.
    expect(done.location).toBe(`${auth.issuer}/oauth2/v1/logout/success`);
    // The very next request of the same browser, with no clock moved and no wait; it also clears the stale cookie.
    const appTwoCookies = () => [...jar.cookies.keys()].filter((name) => name.startsWith(appTwo.config.cookies.session));
    expect(appTwoCookies()).toEqual([appTwo.config.cookies.session, `${appTwo.config.cookies.session}.sig`]);
    await expectSignedOut(appTwo, jar);
    expect(appTwoCookies()).toEqual([]);
    expect(await appTwo.app.stores.sessions.count()).toBe(0);
    expect(await metric('auth_backchannel_logouts_total', 'delivered')).toBe(before + 2);
    const taken = appTwo.logs.filter((line) => line.event === 'session.backchannel_logout');
    expect(taken.at(-1)).toMatchObject({ sessions: 1 });
  });

  it('ends only the SSO session it names: another browser of the same user stays signed in', async () => {
    const first = await signedInToBoth();
    const second = await signedInToBoth(first.user);
    await signOutInAppOne(first.jar);
    await expectSignedOut(appTwo, first.jar);
    expect((await appTwo.get(second.jar, '/')).status).toBe(200);
  });

  it('"sign out everywhere" (the admin API) reaches both apps', async () => {
    const { jar, user } = await signedInToBoth();
    const response = await fetch(`${auth.issuer}/admin/v1/users/${await accountIdOf(user)}/signout-all`, { method: 'POST', headers: { authorization: `Bearer ${await adminToken()}` } });
    expect(response.status).toBe(200);
    await expectSignedOut(appOne, jar);
    await expectSignedOut(appTwo, jar);
  });

  it('"sign out other sessions" on the account page reaches both apps of the other browser', async () => {
    const { jar: other, user } = await signedInToBoth();
    const here = new CookieJar();
    await appOne.login(here, user);
    let step = await request(here, `${auth.issuer}/account`);
    for (let hops = 0; hops < 5 && step.location; hops++) step = await request(here, new URL(step.location, auth.issuer).href);
    expect(step.status).toBe(200);

    const done = await request(here, `${auth.issuer}/account/sessions/sign-out-others`, { method: 'POST', headers: { ...form({}).headers, origin: auth.issuer }, body: form({}).body });
    expect(done.status).toBe(303);
    await expectSignedOut(appOne, other);
    await expectSignedOut(appTwo, other);
    // This browser keeps its session, and its app.
    expect((await appOne.get(here, '/')).status).toBe(200);
  });

  it("an admin's disable reaches both apps", async () => {
    const { jar, user } = await signedInToBoth();
    const response = await fetch(`${auth.issuer}/admin/v1/users/${await accountIdOf(user)}/disable`, { method: 'POST', headers: { authorization: `Bearer ${await adminToken()}` } });
    expect(response.status).toBe(200);
    await expectSignedOut(appOne, jar);
    await expectSignedOut(appTwo, jar);
  });

  it('a session that expires is announced by the purge', async () => {
    const { jar } = await signedInToBoth();
    // Every clock moves on together: the apps check the logout token's iat against theirs.
    authOffsetMs = appOne.offsetMs = appTwo.offsetMs = (auth.config.sessionTtl + 60) * 1000;
    try {
      await auth.app.maintenance.runDue();
    } finally {
      authOffsetMs = appOne.offsetMs = appTwo.offsetMs = 0;
    }
    await expectSignedOut(appOne, jar);
    await expectSignedOut(appTwo, jar);
  });

  it('refuses a forged token, a replayed one and one with a nonce, and takes a valid one once', async () => {
    const { jar, user } = await signedInToBoth();
    const sub = await accountIdOf(user);
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: auth.issuer, aud: appTwo.config.clientId, iat: now, exp: now + 120, sub, events: { [EVENT]: {} } };

    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ ...claims, jti: randomUUID() }).setProtectedHeader({ alg: 'RS256', typ: 'logout+jwt', kid: 'forged' }).sign(privateKey);
    const refused = await postLogoutToken(appTwo, forged);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(await refused.json()).toEqual({ error: 'invalid_request', error_description: 'the logout token is not a JWT signed by the authorization server' });

    const withNonce = await postLogoutToken(appTwo, await auth.sign({ ...claims, jti: randomUUID(), nonce: 'n' }, { typ: 'logout+jwt' }));
    expect(withNonce.status).toBe(400);
    expect(await withNonce.json()).toEqual({ error: 'invalid_request', error_description: 'a logout token must not carry a nonce' });

    const noEvent = await postLogoutToken(appTwo, await auth.sign({ ...claims, jti: randomUUID(), events: {} }, { typ: 'logout+jwt' }));
    expect(noEvent.status).toBe(400);
    expect(await noEvent.json()).toEqual({ error: 'invalid_request', error_description: 'the logout token has no back-channel logout event' });

    const otherAudience = await postLogoutToken(appTwo, await auth.sign({ ...claims, aud: appOne.config.clientId, jti: randomUUID() }, { typ: 'logout+jwt' }));
    expect(otherAudience.status).toBe(400);
    expect(((await otherAudience.json()) as { error_description: string }).error_description).toBe('logout token unexpected "aud" claim value');

    const stale = await postLogoutToken(appTwo, await auth.sign({ ...claims, iat: now - 600, jti: randomUUID() }, { typ: 'logout+jwt' }));
    expect(stale.status).toBe(400);

    // None of those ended anything.
    expect((await appTwo.get(jar, '/')).status).toBe(200);

    const valid = await auth.sign({ ...claims, jti: randomUUID() }, { typ: 'logout+jwt' });
    const taken = await postLogoutToken(appTwo, valid);
    expect(taken.status).toBe(200);
    expect(await taken.text()).toBe('');
    await expectSignedOut(appTwo, jar);
    expect((await appOne.get(jar, '/')).status).toBe(200);

    const replayed = await postLogoutToken(appTwo, valid);
    expect(replayed.status).toBe(400);
    expect(await replayed.json()).toEqual({ error: 'invalid_request', error_description: 'this logout token was already used' });
  });

  it('a client that is down does not block the sign-out; its delivery is audited, counted and retried', async () => {
    const appDown = await startClient({ auth, apiUrl: api.url, backchannel: true });
    const jar = new CookieJar();
    const user = await auth.createUser();
    await appDown.login(jar, user);
    await ssoInto(appOne, jar);
    await ssoInto(appTwo, jar);
    expect((await appTwo.get(jar, '/')).status).toBe(200);
    await appDown.close();

    const retryingBefore = await metric('auth_backchannel_logouts_total', 'retrying');
    const done = await signOutInAppOne(jar);
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${auth.issuer}/oauth2/v1/logout/success`);
    await expectSignedOut(appTwo, jar);
    expect(await metric('auth_backchannel_logouts_total', 'retrying')).toBe(retryingBefore + 1);

    await auth.app.flushAudit();
    const failed = await auth.app.services.auditEvents.list({ event: { exact: 'session.backchannel_logout.failed' }, clientId: appDown.config.clientId, limit: 10 });
    expect(failed.length).toBe(1);
    expect(failed[0]!.fields).toMatchObject({ attempt: 1, reason: 'network', retried: true });
    expect(failed[0]!.clientId).toBe(appDown.config.clientId);

    // The retry runs once its delay has passed by the server's clock, not before.
    expect(auth.app.backchannelLogout.pending()).toBe(1);
    authOffsetMs = 9_000;
    await auth.app.backchannelLogout.runDue();
    expect(await metric('auth_backchannel_logouts_total', 'retrying')).toBe(retryingBefore + 1);
    authOffsetMs = 11_000;
    try {
      await auth.app.backchannelLogout.runDue();
    } finally {
      authOffsetMs = 0;
    }
    expect(await metric('auth_backchannel_logouts_total', 'retrying')).toBe(retryingBefore + 2);
    await auth.app.flushAudit();
    const retried = await auth.app.services.auditEvents.list({ event: { exact: 'session.backchannel_logout.failed' }, clientId: appDown.config.clientId, limit: 10 });
    expect(retried.map((event) => event.fields.attempt)).toEqual([2, 1]);
    expect(auth.app.backchannelLogout.pending()).toBe(1);
  });

  it('the sign-out page lists the apps it signs out; after it, those that confirmed and those not reached yet, for ten minutes', async () => {
    const appDown = await startClient({ auth, apiUrl: api.url, backchannel: true });
    const jar = new CookieJar();
    await appDown.login(jar, await auth.createUser());
    await ssoInto(appOne, jar);
    await ssoInto(appTwo, jar);
    await appDown.close();

    // Sent to the logout endpoint without an id_token_hint: the confirmation page names every app.
    const page = await request(jar, `${auth.issuer}/oauth2/v1/logout`);
    expect(page.status).toBe(200);
    const listed = /<ul class="devices" id="logout-apps">(.*?)<\/ul>/s.exec(page.text)?.[1];
    expect(listed).toBe(items(appDown, appOne, appTwo));

    const action = /<form[^>]+action="([^"]+)"/.exec(page.text)![1]!;
    const done = await request(jar, new URL(action, auth.issuer).href, { method: 'POST', ...form({ xsrf: hiddenField(page.text, 'xsrf'), logout: 'yes' }) });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${auth.issuer}/oauth2/v1/logout/success`);
    const cookie = done.headers.getSetCookie().find((line) => line.startsWith('gh_auth_signed_out='));
    expect(cookie).toMatch(/; path=\/oauth2\/v1\/logout; expires=[^;]+; samesite=lax; httponly$/);

    const success = await request(jar, done.location!);
    expect(success.status).toBe(200);
    expect(/<ul class="devices" id="signed-out-apps">(.*?)<\/ul>/s.exec(success.text)?.[1]).toBe(items(appOne, appTwo));
    expect(/<ul class="devices" id="pending-apps">(.*?)<\/ul>/s.exec(success.text)?.[1]).toBe(`<li>${appDown.config.clientId}</li>`);
    await expectSignedOut(appOne, jar);
    await expectSignedOut(appTwo, jar);

    // A reload shows the same list; ten minutes later (by the server's clock) the page lists nothing.
    expect((await request(jar, done.location!)).text).toContain(`<ul class="devices" id="signed-out-apps">${items(appOne, appTwo)}</ul>`);
    authOffsetMs = 10 * 60_000 + 1;
    try {
      const later = await request(jar, done.location!);
      expect(later.status).toBe(200);
      expect(later.text).toContain('<p role="status">You have been signed out of Gatehouse in this browser.</p>');
      expect(later.text).not.toContain('id="signed-out-apps"');
    } finally {
      authOffsetMs = 0;
    }
  });

  it('signing out of the only app of the only session goes straight back to the app (nothing more to tell)', async () => {
    const jar = new CookieJar();
    await appOne.login(jar, await auth.createUser());
    const done = await signOutInAppOne(jar);
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${appOne.url}/signed-out`);
    expect(done.headers.getSetCookie().some((line) => line.startsWith('gh_auth_signed_out='))).toBe(false);
  });

  it('after signing out in app-one: the page lists app-one and app-two, leads back to app-one, and "Sign out everywhere" ends the other browser too', async () => {
    const { jar, user } = await signedInToBoth();
    const other = await signedInToBoth(user);
    const done = await signOutInAppOne(jar);
    expect(done.location).toBe(`${auth.issuer}/oauth2/v1/logout/success`);
    const page = await request(jar, done.location!);
    expect(page.status).toBe(200);
    expect(/<ul class="devices" id="signed-out-apps">(.*?)<\/ul>/s.exec(page.text)?.[1]).toBe(items(appOne, appTwo));
    expect(page.text).toContain(`<a class="button" id="back-to-app" href="${appOne.url}/signed-out">Back to ${appOne.config.clientId}</a>`);
    expect(page.text).toContain('<p id="everywhere-sessions">You are still signed in to Gatehouse in 1 other browser or device. Signing out everywhere ends it and the apps signed in with it.</p>');
    const nonce = hiddenField(page.text, 'nonce');
    // The same page in German (Accept-Language), every text from the catalogue.
    const german = await request(jar, done.location!, { headers: { 'accept-language': 'de-DE,de;q=0.9' } });
    expect(german.headers.get('content-language')).toBe('de');
    expect(german.text).toContain('<h1>Abgemeldet</h1>');
    expect(german.text).toContain('<p id="everywhere-sessions">Sie sind in einem anderen Browser oder Gerät noch bei Gatehouse angemeldet.');
    expect(german.text).toContain(`id="back-to-app" href="${appOne.url}/signed-out">Zurück zu ${appOne.config.clientId}</a>`);
    expect(german.text).not.toContain('{{missing:');
    const everywhere = (body: Record<string, string>, headers: Record<string, string> = { origin: auth.issuer }) =>
      request(jar, `${auth.issuer}/oauth2/v1/logout/everywhere`, { method: 'POST', headers: { ...form(body).headers, ...headers }, body: form(body).body });

    // A cross-site post and a wrong nonce end nothing.
    const crossSite = await everywhere({ nonce }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    const forged = await everywhere({ nonce: 'not-the-nonce' });
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('<h1>This sign-out page has expired</h1>');
    expect(forged.text).toContain('<a class="button" id="way-on" href="/account">Go to your account</a>');
    expect(forged.text).toContain('Error code: <code>sign_out_expired</code>');
    expect((await appTwo.get(other.jar, '/')).status).toBe(200);

    const ended = await everywhere({ nonce });
    expect(ended.status).toBe(303);
    expect(ended.location).toBe('/oauth2/v1/logout/success');
    await expectSignedOut(appOne, other.jar);
    await expectSignedOut(appTwo, other.jar);
    await auth.app.flushAudit();
    const audited = await auth.app.services.auditEvents.list({ event: { exact: 'session.logout.everywhere' }, limit: 10 });
    expect(audited[0]!.fields).toMatchObject({ sessions: 1, grants: 2 });
    expect(audited[0]!.accountId).toBe(await accountIdOf(user));

    const after = await request(jar, `${auth.issuer}/oauth2/v1/logout/success`);
    expect(after.text).toContain('<p class="notice" role="status" id="ended-elsewhere">Signed out everywhere: 1 other session ended. Every browser and device must sign in again.</p>');
    expect(after.text).toContain(`id="back-to-app" href="${appOne.url}/signed-out"`);
    expect(after.text).not.toContain('id="sign-out-everywhere"');
    // Used once: the same post again is refused.
    expect((await everywhere({ nonce })).status).toBe(400);
  });
});
