/**
 * The consent step over HTTP (interactions/consent.ts, oidc/grants.ts): when the page is shown
 * and when not, Allow and Deny, the record remembered across sessions, first-party clients,
 * prompt=none and prompt=consent, offline_access (with and without prompt=consent, through PAR,
 * for a first-party client), and revoking an app on the account page.
 * Time moves only by the injected clock (one TOTP step per sign-in). SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { captureLogger } from '../support/push.ts';
import { jsonBody } from '../support/cookie-jar.ts';
import { authorizeUrl, basic, codeFrom, CookieJar, decodeJwt, exchange, form, introspect, logout, refresh, request, signIn, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';

const THIRD = { clientId: 'third-app', clientSecret: 'third-app-secret-0123456789abcdef', redirectUri: 'http://127.0.0.1:8/cb' };

describe.each(TEST_ENGINES)('the consent step on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  const { logger, audits } = captureLogger();

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, logger });
    await server.app.services.clients.create({
      clientId: THIRD.clientId,
      name: 'Third <App>',
      redirectUris: [THIRD.redirectUri],
      clientSecret: THIRD.clientSecret,
      grantTypes: ['authorization_code', 'refresh_token'],
    });
  });
  afterAll(() => server.close());

  const third = (params: Parameters<typeof authorizeUrl>[1] = {}) => authorizeUrl(server, { clientId: THIRD.clientId, redirectUri: THIRD.redirectUri, ...params });
  const login = async (user: TestUser, jar: CookieJar, url: string) => {
    clock.now += 31_000;
    return signIn(server, jar, user, url, clock.now);
  };
  const decide = (jar: CookieJar, uid: string, decision: string, headers: Record<string, string> = {}) =>
    request(jar, `${server.issuer}/consent`, { method: 'POST', headers: { ...form({ uid, decision }).headers, origin: server.issuer, ...headers }, body: form({ uid, decision }).body });
  const accountOf = async (username: string) => (await server.app.services.accounts.findByUsername(username))!;
  const tokenRequest = async (params: Record<string, string>) => {
    const response = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(THIRD.clientId, THIRD.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('a client that is not first-party asks first: the page names it, the account and each scope in plain words', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const page = await login(user, jar, third({ scope: 'openid profile email movies:read' }));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:8");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain('<h1>Allow <span id="consent-client">Third &lt;App&gt;</span> to access your account?</h1>');
    expect(page.text).toContain(`Signed in as <strong id="consent-username">${user.username}</strong>.`);
    const items = [...page.text.matchAll(/<li data-scope="([^"]+)">(.*?)<\/li>/g)].map((m) => [m[1], m[2]]);
    expect(items).toEqual([
      ['openid', 'Know who you are (your Gatehouse user id) <code>openid</code>'],
      ['profile', 'See your name and username <code>profile</code>'],
      ['email', 'See your email address <code>email</code>'],
      ['movies:read', 'View your movies <code>movies:read</code>'],
    ]);
    expect(page.text).toContain('<form method="post" action="/consent">');
    expect(page.text).toContain('<button type="submit" name="decision" value="allow" id="consent-allow" autofocus>Allow</button>');
    expect(page.text).toContain('<button type="submit" name="decision" value="deny" class="secondary" id="consent-deny">Deny</button>');
    // The page replaced the login form: a password post to this interaction is refused.
    const uid = uidOf(page.text);
    const stray = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) });
    expect(stray.status).toBe(400);
    expect(stray.text).toContain('interaction_expired');
    expect(await server.app.services.consents.find((await accountOf(user.username)).id, THIRD.clientId)).toBeUndefined();
  });

  it('a client with a logo: the page shows it escaped, at a fixed size, and only this response lets img-src reach its origin', async () => {
    const logoUri = 'https://cdn.logo.example:8443/brand/logo.png?size=48&theme=dark';
    await server.app.services.clients.create({ clientId: 'logo-app', name: 'Logo "App"', redirectUris: ['https://logo-app.example/cb'], logoUri });
    const user = await server.createUser();
    const jar = new CookieJar();
    const url = authorizeUrl(server, { clientId: 'logo-app', redirectUri: 'https://logo-app.example/cb' });
    const signInPage = await request(jar, url);
    // The login page of the same client shows the logo too, its origin allowed on that page.
    expect(signInPage.headers.get('content-security-policy')).toContain("img-src 'self' data: https://cdn.logo.example:8443;");
    expect(signInPage.text).toContain('<img id="client-logo" class="client-logo" src="https://cdn.logo.example:8443/brand/logo.png?size=48&amp;theme=dark" alt="Logo &quot;App&quot; logo" width="40" height="40" referrerpolicy="no-referrer">');
    const page = await login(user, jar, url);
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      '<div class="client-brand"><img id="consent-logo" class="client-logo" src="https://cdn.logo.example:8443/brand/logo.png?size=48&amp;theme=dark" alt="Logo &quot;App&quot; logo" width="48" height="48" referrerpolicy="no-referrer"><h1>Allow <span id="consent-client">Logo &quot;App&quot;</span> to access your account?</h1></div>',
    );
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https://cdn.logo.example:8443; connect-src 'self'; manifest-src 'self'; form-action 'self' https://logo-app.example; frame-ancestors 'none'; base-uri 'none'",
    );
    // A JSON caller gets the URL to show and no widened policy (it renders no image here).
    const again = new CookieJar();
    expect((await login(user, again, url)).status).toBe(200);
    const step = await request(again, url, { headers: { accept: 'application/json' } });
    expect(step.json<Record<string, unknown>>()).toMatchObject({ status: 'consent_required', client: 'Logo "App"', logo_uri: logoUri });
    expect(step.headers.get('content-security-policy')).toContain("img-src 'self' data:;");
    // Without a logo: no image, and img-src stays same-origin.
    const plain = await login(user, new CookieJar(), third());
    expect(plain.text).not.toContain('<img');
    expect(plain.text).toContain('<div class="client-brand"><h1>Allow <span id="consent-client">Third &lt;App&gt;</span>');
    expect(plain.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; form-action 'self' http://127.0.0.1:8; frame-ancestors 'none'; base-uri 'none'",
    );
    await server.app.services.clients.remove('logo-app');
  });

  it('Deny returns access_denied to the client with its state and iss, and records nothing', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const page = await login(user, jar, third({ state: 'deny-state' }));
    const denied = await decide(jar, uidOf(page.text), 'deny');
    expect(denied.status).toBe(302);
    const target = new URL(denied.location!);
    expect(`${target.origin}${target.pathname}`).toBe(THIRD.redirectUri);
    expect(Object.fromEntries(target.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The user did not allow the application to access their account.',
      state: 'deny-state',
      iss: server.issuer,
    });
    const account = await accountOf(user.username);
    expect(await server.app.services.consents.find(account.id, THIRD.clientId)).toBeUndefined();
    expect(audits('consent.denied').at(-1)).toMatchObject({ account_id: account.id, client_id: THIRD.clientId });
    // Denied is not remembered: the next request asks again.
    const again = await request(jar, third());
    expect(again.status).toBe(200);
    expect(again.text).toContain('id="consent-allow"');
  });

  it('Allow records the grant and continues with a code; the same session, a new session and prompt=none then pass without the page', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const page = await login(user, jar, third({ state: 'allow-state' }));
    const allowed = await decide(jar, uidOf(page.text), 'allow');
    expect(allowed.status).toBe(302);
    const target = new URL(allowed.location!);
    expect(`${target.origin}${target.pathname}`).toBe(THIRD.redirectUri);
    expect(target.searchParams.get('state')).toBe('allow-state');
    expect(target.searchParams.get('iss')).toBe(server.issuer);
    const tokens = await exchange(server, codeFrom(allowed.location), {}, THIRD);
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('openid profile email movies:read');

    const account = await accountOf(user.username);
    const record = await server.app.services.consents.find(account.id, THIRD.clientId);
    expect(record).toEqual({ accountId: account.id, clientId: THIRD.clientId, scopes: ['openid', 'profile', 'email', 'movies:read'], grantedAt: clock.now, updatedAt: clock.now });
    expect(audits('consent.granted').at(-1)).toMatchObject({ account_id: account.id, client_id: THIRD.clientId, scopes: 'openid profile email movies:read' });

    const sameSession = await request(jar, third());
    expect(sameSession.status).toBe(302);
    expect(codeFrom(sameSession.location)).toMatch(/^[\w-]{20,}$/);
    const silent = await request(jar, third({ prompt: 'none' }));
    expect(silent.status).toBe(302);
    expect(codeFrom(silent.location)).toMatch(/^[\w-]{20,}$/);

    // A new SSO session (another browser): remembered, the sign-in ends at the client.
    const other = await login(user, new CookieJar(), third());
    expect(other.status).toBe(302);
    expect(codeFrom(other.location)).toMatch(/^[\w-]{20,}$/);
  });

  it('a scope not granted yet asks again, and Allow adds it to the record', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    await decide(jar, uidOf((await login(user, jar, third({ scope: 'openid profile' }))).text), 'allow');
    const wider = await request(jar, third({ scope: 'openid profile movies:read' }));
    expect(wider.status).toBe(200);
    expect(wider.text).toContain('<li data-scope="movies:read">');
    clock.now += 1_000;
    const allowed = await decide(jar, uidOf(wider.text), 'allow');
    expect(allowed.status).toBe(302);
    const tokens = await exchange(server, codeFrom(allowed.location), {}, THIRD);
    expect(tokens.body.scope).toBe('openid profile movies:read');
    const record = (await server.app.services.consents.find((await accountOf(user.username)).id, THIRD.clientId))!;
    expect(record.scopes).toEqual(['openid', 'profile', 'movies:read']);
    expect(record.updatedAt).toBe(record.grantedAt + 1_000);
  });

  it('prompt=none when consent is needed returns consent_required to the client', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    // A first-party sign-in makes the SSO session; the third-party app has no consent yet.
    expect((await login(user, jar, authorizeUrl(server))).status).toBe(302);
    const res = await request(jar, third({ prompt: 'none', state: 'quiet' }));
    expect(res.status).toBe(302);
    const target = new URL(res.location!);
    expect(`${target.origin}${target.pathname}`).toBe(THIRD.redirectUri);
    expect(target.searchParams.get('error')).toBe('consent_required');
    expect(target.searchParams.get('state')).toBe('quiet');
    expect(target.searchParams.get('iss')).toBe(server.issuer);
  });

  it('a first-party client skips the page, unless it sends prompt=consent', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const direct = await login(user, jar, authorizeUrl(server));
    expect(direct.status).toBe(302);
    expect(codeFrom(direct.location)).toMatch(/^[\w-]{20,}$/);
    const asked = await request(jar, authorizeUrl(server, { prompt: 'consent', state: 'fp' }));
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('<span id="consent-client">Test App</span>');
    const allowed = await decide(jar, uidOf(asked.text), 'allow');
    expect(allowed.status).toBe(302);
    expect(new URL(allowed.location!).searchParams.get('state')).toBe('fp');
    expect((await exchange(server, codeFrom(allowed.location))).status).toBe(200);
    // A first-party app is granted what it asks anyway: nothing is recorded, nothing to revoke.
    expect(await server.app.services.consents.find((await accountOf(user.username)).id, server.testClient.clientId)).toBeUndefined();
    expect(audits('consent.granted').at(-1)).toMatchObject({ client_id: server.testClient.clientId });
  });

  it('a removed client takes its consent records along: the same client id registered again asks again', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const again = { clientId: 'reborn-app', redirectUri: 'http://127.0.0.1:8/reborn' };
    await server.app.services.clients.create({ clientId: again.clientId, name: 'Reborn', redirectUris: [again.redirectUri], grantTypes: ['authorization_code'] });
    const url = () => authorizeUrl(server, { clientId: again.clientId, redirectUri: again.redirectUri });
    expect((await decide(jar, uidOf((await login(user, jar, url())).text), 'allow')).status).toBe(302);
    expect((await request(jar, url())).status).toBe(302);
    expect(await server.app.services.clients.remove(again.clientId)).toBe(true);
    await server.app.services.clients.create({ clientId: again.clientId, name: 'Someone else', redirectUris: [again.redirectUri], grantTypes: ['authorization_code'] });
    const asked = await request(jar, url());
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('<span id="consent-client">Someone else</span>');
  });

  it('prompt=consent forces the page even when everything was granted; prompt=consent none is refused', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    await decide(jar, uidOf((await login(user, jar, third())).text), 'allow');
    const forced = await request(jar, third({ prompt: 'consent' }));
    expect(forced.status).toBe(200);
    expect(forced.text).toContain('id="consent-allow"');
    const both = await request(jar, third({ prompt: 'consent none', state: 'both' }));
    expect(both.status).toBe(302);
    const target = new URL(both.location!);
    expect(target.searchParams.get('error')).toBe('invalid_request');
    expect(target.searchParams.get('error_description')).toBe('prompt none must only be used alone');
    expect(target.searchParams.get('state')).toBe('both');
  });

  it('prompt=login consent signs in again and then asks', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    await decide(jar, uidOf((await login(user, jar, third())).text), 'allow');
    const page = await login(user, jar, third({ prompt: 'login consent', state: 'lc' }));
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="consent-allow"');
    const allowed = await decide(jar, uidOf(page.text), 'allow');
    expect(allowed.status).toBe(302);
    expect(new URL(allowed.location!).searchParams.get('state')).toBe('lc');
    const tokens = await exchange(server, codeFrom(allowed.location), {}, THIRD);
    expect(tokens.status).toBe(200);
  });

  it('offline_access with prompt=consent is shown, and Allow yields a refresh token that outlives the session', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const page = await login(user, jar, third({ scope: 'openid offline_access', prompt: 'consent' }));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<li data-scope="offline_access">Stay connected when you are not using it');
    const allowed = await decide(jar, uidOf(page.text), 'allow');
    const tokens = await exchange(server, codeFrom(allowed.location), {}, THIRD);
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('openid offline_access');
    expect(tokens.body.refresh_token).toEqual(expect.stringMatching(/^[\w-]{40,}$/));
    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token) });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('openid offline_access');
    expect((await server.app.services.consents.find((await accountOf(user.username)).id, THIRD.clientId))!.scopes).toEqual(['openid', 'offline_access']);
  });

  it('offline_access without prompt=consent asks on the page; Allow yields a refresh token that survives an SSO logout, and the next sign-in asks nothing', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const page = await login(user, jar, third({ scope: 'openid offline_access' }));
    expect(page.status).toBe(200);
    const items = [...page.text.matchAll(/<li data-scope="([^"]+)">(.*?)<\/li>/g)].map((m) => m[1]);
    expect(items).toEqual(['openid', 'offline_access']);
    expect(page.text).toContain('<li data-scope="offline_access">Stay connected when you are not using it (until you revoke it here or on your account page) <code>offline_access</code></li>');
    const tokens = await exchange(server, codeFrom((await decide(jar, uidOf(page.text), 'allow')).location), {}, THIRD);
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('openid offline_access');
    expect(tokens.body.refresh_token).toEqual(expect.stringMatching(/^[\w-]{40,}$/));
    const account = await accountOf(user.username);
    expect((await server.app.services.consents.find(account.id, THIRD.clientId))!.scopes).toEqual(['openid', 'offline_access']);

    await logout(server, jar, String(tokens.body.id_token));
    expect((await request(jar, third({ scope: 'openid offline_access', prompt: 'none' }))).location).toContain('error=login_required');
    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token) });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('openid offline_access');

    // Remembered: a new SSO session goes straight back to the client, and so does prompt=none.
    const other = new CookieJar();
    const again = await login(user, other, third({ scope: 'openid offline_access' }));
    expect(again.status).toBe(302);
    const silent = await request(other, third({ scope: 'openid offline_access', prompt: 'none' }));
    expect(silent.status).toBe(302);
    const quiet = await exchange(server, codeFrom(silent.location), {}, THIRD);
    expect(quiet.body.scope).toBe('openid offline_access');
  });

  it('offline_access not allowed yet: prompt=none answers consent_required, and the page asks for it alone', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    expect((await decide(jar, uidOf((await login(user, jar, third({ scope: 'openid' }))).text), 'allow')).status).toBe(302);
    const silent = await request(jar, third({ scope: 'openid offline_access', prompt: 'none', state: 'off' }));
    expect(silent.status).toBe(302);
    const target = new URL(silent.location!);
    expect(`${target.origin}${target.pathname}`).toBe(THIRD.redirectUri);
    expect(Object.fromEntries(target.searchParams)).toEqual({ error: 'consent_required', error_description: 'requested scopes not granted', state: 'off', iss: server.issuer });
    const step = await request(jar, third({ scope: 'openid offline_access' }), { headers: { accept: 'application/json' } });
    expect(step.status).toBe(200);
    expect(step.json<{ scopes: Array<{ scope: string }> }>().scopes.map((s) => s.scope)).toEqual(['openid', 'offline_access']);
  });

  it('offline_access through PAR without prompt=consent is asked on the page too', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const discovery = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as { pushed_authorization_request_endpoint: string };
    const pushed = await fetch(discovery.pushed_authorization_request_endpoint, {
      method: 'POST',
      headers: { authorization: basic(THIRD.clientId, THIRD.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ response_type: 'code', client_id: THIRD.clientId, redirect_uri: THIRD.redirectUri, scope: 'openid offline_access', state: 'par', nonce: 'n-par' }),
    });
    expect(pushed.status).toBe(201);
    const { request_uri } = (await pushed.json()) as { request_uri: string };
    const url = new URL('/oauth2/v1/authorize', server.issuer);
    url.search = new URLSearchParams({ client_id: THIRD.clientId, request_uri }).toString();
    const page = await login(user, jar, url.toString());
    expect(page.status).toBe(200);
    expect(page.text).toContain('<li data-scope="offline_access">');
    const tokens = await exchange(server, codeFrom((await decide(jar, uidOf(page.text), 'allow')).location), {}, THIRD);
    expect(tokens.body.scope).toBe('openid offline_access');
  });

  it('offline_access is left out for a client not allowed refresh_token: no page item, no refresh token', async () => {
    const client = { clientId: 'no-refresh-app', clientSecret: 'no-refresh-app-secret-0123456789abcdef', redirectUri: 'http://127.0.0.1:8/nr' };
    await server.app.services.clients.create({ clientId: client.clientId, name: 'No Refresh', redirectUris: [client.redirectUri], clientSecret: client.clientSecret, grantTypes: ['authorization_code'] });
    const user = await server.createUser();
    const jar = new CookieJar();
    const page = await login(user, jar, authorizeUrl(server, { clientId: client.clientId, redirectUri: client.redirectUri, scope: 'openid offline_access' }));
    expect(page.status).toBe(200);
    expect([...page.text.matchAll(/<li data-scope="([^"]+)">/g)].map((m) => m[1])).toEqual(['openid']);
    const tokens = await exchange(server, codeFrom((await decide(jar, uidOf(page.text), 'allow')).location), {}, client);
    expect(tokens.body.scope).toBe('openid');
    expect(tokens.body.refresh_token).toBeUndefined();
    await server.app.services.clients.remove(client.clientId);
  });

  it('a first-party client gets offline_access without the page; its refresh token survives an SSO logout, and nothing is recorded', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const direct = await login(user, jar, authorizeUrl(server, { scope: 'openid offline_access' }));
    expect(direct.status).toBe(302);
    const tokens = await exchange(server, codeFrom(direct.location));
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('openid offline_access');
    await logout(server, jar, String(tokens.body.id_token));
    const refreshed = await refresh(server, String(tokens.body.refresh_token));
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('openid offline_access');
    expect(await server.app.services.consents.find((await accountOf(user.username)).id, server.testClient.clientId)).toBeUndefined();
  });

  it('a JSON caller gets the consent step as JSON and answers it with JSON', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    expect((await login(user, jar, authorizeUrl(server))).status).toBe(302);
    const step = await request(jar, third({ scope: 'openid email' }), { headers: { accept: 'application/json' } });
    expect(step.status).toBe(200);
    const body = step.json<{ interaction: string }>();
    expect(body).toEqual({
      status: 'consent_required',
      interaction: body.interaction,
      next: '/consent',
      client: 'Third <App>',
      logo_uri: null,
      scopes: [
        { scope: 'openid', description: 'Know who you are (your Gatehouse user id)' },
        { scope: 'email', description: 'See your email address' },
      ],
    });
    const done = await request(jar, `${server.issuer}/consent`, { method: 'POST', ...jsonBody({ uid: body.interaction, decision: 'allow' }) });
    expect(done.status).toBe(302);
    expect(codeFrom(done.json<{ redirect_to: string }>().redirect_to)).toMatch(/^[\w-]{20,}$/);
  });

  it('a JSON sign-in that needs the consent answers the consent step as JSON after the second factor', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const start = await request(jar, third({ scope: 'openid profile' }), { headers: { accept: 'application/json' } });
    const uid = start.json<{ interaction: string }>().interaction;
    expect((await request(jar, `${server.issuer}/login`, { method: 'POST', ...jsonBody({ uid, username: user.username, password: user.password }) })).status).toBe(200);
    clock.now += 31_000;
    const code = await server.app.services.totp.generate(user.totpSecret, clock.now);
    const step = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ uid, code }) });
    expect(step.status).toBe(200);
    const body = step.json<{ interaction: string }>();
    expect(body).toEqual({
      status: 'consent_required',
      interaction: body.interaction,
      next: '/consent',
      client: 'Third <App>',
      logo_uri: null,
      scopes: [
        { scope: 'openid', description: 'Know who you are (your Gatehouse user id)' },
        { scope: 'profile', description: 'See your name and username' },
      ],
    });
    const done = await request(jar, `${server.issuer}/consent`, { method: 'POST', ...jsonBody({ uid: body.interaction, decision: 'deny' }) });
    expect(done.status).toBe(302);
    expect(new URL(done.json<{ redirect_to: string }>().redirect_to).searchParams.get('error')).toBe('access_denied');
  });

  it('the consent form refuses a cross-site post, a foreign uid and an unknown decision', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const page = await login(user, jar, third());
    const uid = uidOf(page.text);
    const crossSite = await decide(jar, uid, 'allow', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(crossSite.text).toContain('forbidden');
    const noCookie = await decide(new CookieJar(), uid, 'allow');
    expect(noCookie.status).toBe(400);
    expect(noCookie.text).toContain('interaction_expired');
    const odd = await request(jar, `${server.issuer}/consent`, { method: 'POST', ...jsonBody({ uid, decision: 'maybe' }) });
    expect(odd.status).toBe(400);
    expect(odd.json()).toEqual({ error: 'invalid_request', error_description: 'Field "decision" must be "allow" or "deny".' });
    // The page still works after the refusals.
    expect((await decide(jar, uid, 'allow')).status).toBe(302);
  });

  it('revoking the app on the account page ends its refresh tokens and access tokens at once and removes the record', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const page = await login(user, jar, third({ scope: 'openid profile movies:read offline_access', prompt: 'consent' }));
    clock.now += 1_000;
    const tokens = await exchange(server, codeFrom((await decide(jar, uidOf(page.text), 'allow')).location), {}, THIRD);
    expect(tokens.status).toBe(200);
    const account = await accountOf(user.username);

    const listed = await request(jar, `${server.issuer}/account/apps`, { headers: { accept: 'text/html' } });
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('<h1>Apps</h1>\n\n<section id="apps"><h2>Connected apps</h2>');
    expect(listed.text).toContain(`<li data-client-id="third-app"><span><strong>Third &lt;App&gt;</strong><br><span class="muted">openid profile movies:read offline_access</span>`);
    expect(listed.text).toContain('<input type="hidden" name="client_id" value="third-app"><button type="submit" class="danger" aria-label="Revoke Third &lt;App&gt;">Revoke</button>');
    const json = await request(jar, `${server.issuer}/account`, { headers: { accept: 'application/json' } });
    expect(json.json<{ connected_apps: unknown }>().connected_apps).toEqual([
      {
        client_id: 'third-app',
        name: 'Third <App>',
        scopes: ['openid', 'profile', 'movies:read', 'offline_access'],
        granted_at: new Date(clock.now).toISOString(),
        updated_at: new Date(clock.now).toISOString(),
      },
    ]);

    // Revoke opens a confirmation page (GET on the same path) whose Confirm posts the revocation.
    expect(listed.text).toContain('<form method="get" action="/account/apps/revoke"><input type="hidden" name="client_id" value="third-app"><button');
    const confirm = await request(jar, `${server.issuer}/account/apps/revoke?client_id=third-app`, { headers: { accept: 'text/html' } });
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain("<h1>Revoke this app&#39;s access?</h1>");
    expect(confirm.text).toContain('<strong id="confirm-subject">Third &lt;App&gt;</strong>');
    expect(confirm.text).toContain('<p id="confirm-consequence">Third &lt;App&gt; can no longer use your account: its sign-ins and refresh tokens end at once, and it asks for your permission again the next time you use it.</p>');
    expect(confirm.text).toContain('<form method="post" action="/account/apps/revoke">\n<input type="hidden" name="client_id" value="third-app">\n<button type="submit" class="danger" id="confirm">Revoke access</button>');
    expect(confirm.text).toContain('<a href="/account/apps" id="cancel">Cancel</a>');
    expect(confirm.text).toContain('<a href="/account/apps" id="nav-apps" aria-current="page">');
    const german = await request(jar, `${server.issuer}/account/apps/revoke?client_id=third-app`, { headers: { accept: 'text/html', 'accept-language': 'de' } });
    expect(german.text).toContain('<h1>Zugriff dieser App widerrufen?</h1>');
    expect(german.text).toContain('<button type="submit" class="danger" id="confirm">Zugriff widerrufen</button>');
    expect(german.text).not.toContain('{{missing:');
    // An app the account has not connected has no confirmation page: the Apps page says so.
    const stranger = await request(jar, `${server.issuer}/account/apps/revoke?client_id=never-connected`, { headers: { accept: 'text/html' } });
    expect(stranger.status).toBe(303);
    expect(stranger.location).toBe('/account/apps');
    expect((await request(jar, `${server.issuer}/account/apps`, { headers: { accept: 'text/html' } })).text).toContain('This application is not connected to your account. Nothing was revoked.');
    // Showing the page changes nothing.
    expect(await server.app.services.consents.find(account.id, THIRD.clientId)).toBeDefined();

    const crossSite = await request(jar, `${server.issuer}/account/apps/revoke`, { method: 'POST', headers: { ...form({ client_id: 'third-app' }).headers, origin: 'https://evil.example' }, body: form({ client_id: 'third-app' }).body });
    expect(crossSite.status).toBe(403);
    const signedOut = await request(new CookieJar(), `${server.issuer}/account/apps/revoke`, { method: 'POST', ...jsonBody({ client_id: 'third-app' }) });
    expect(signedOut.status).toBe(401);
    const unknown = await request(jar, `${server.issuer}/account/apps/revoke`, { method: 'POST', ...jsonBody({ client_id: 'never-connected' }) });
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toEqual({ error: 'not_found', error_description: 'No such application is connected to your account.' });

    const revoked = await request(jar, `${server.issuer}/account/apps/revoke`, { method: 'POST', headers: { ...form({ client_id: 'third-app' }).headers, origin: server.issuer }, body: form({ client_id: 'third-app' }).body });
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe('/account/apps');
    expect(await server.app.services.consents.find(account.id, THIRD.clientId)).toBeUndefined();
    expect(audits('consent.revoked').at(-1)).toMatchObject({ account_id: account.id, client_id: THIRD.clientId, grants: 1 });

    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token) });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    expect((await introspect(server, String(tokens.body.access_token))).body).toEqual({ active: false });
    // The grant's revocation is recorded by grant_id: the feed publishes it as session-revoked.
    const grantId = decodeJwt(String(tokens.body.access_token)).grant_id as string;
    expect(await server.app.services.revocations.isRevoked({ grantId })).toBe(true);

    const after = await request(jar, `${server.issuer}/account/apps`, { headers: { accept: 'text/html' } });
    expect(after.text).toContain("The application&#39;s access was revoked. Its sign-ins and refresh tokens ended.");
    expect(after.text).toContain('<p id="app-list">No application has asked for access to your account.</p>');
    // The app asks again at its next authorization, in the same SSO session.
    const again = await request(jar, third());
    expect(again.status).toBe(200);
    expect(again.text).toContain('id="consent-allow"');
  });

  it('the request metrics name the consent and revoke routes by their paths', async () => {
    const text = await server.app.metrics.metrics();
    expect(text).toMatch(/http_requests_total\{method="POST",route="\/consent",status="302"\} \d+/);
    expect(text).toMatch(/http_requests_total\{method="POST",route="\/consent",status="403"\} 1\n/);
    expect(text).toMatch(/http_requests_total\{method="POST",route="\/account\/apps\/revoke",status="303"\} 1\n/);
  });
});
