import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, startTestAuthServer, type TestAuthServer } from '@gatehouse/auth/testing';
import { nextCode, startClient, type ClientHarness } from '../support/client-harness.ts';
import { startStubApi, type StubApi } from '../support/stub-api.ts';

let auth: TestAuthServer;
let api: StubApi;
let client: ClientHarness;

beforeAll(async () => {
  auth = await startTestAuthServer();
  api = await startStubApi({ issuer: auth.issuer, audience: auth.audience });
  client = await startClient({ auth, apiUrl: api.url });
});

afterAll(async () => {
  await client?.close();
  await api?.close();
  await auth?.close();
});

const sessionCookie = () => client.config.cookies.session;
const setCookieLines = (headers: Headers, name: string) => headers.getSetCookie().filter((line) => line.startsWith(`${name}=`));

describe('a request without a session', () => {
  it('answers 302 to the authorization endpoint with every parameter, and creates no session', async () => {
    const before = await client.app.stores.sessions.count();
    const jar = new CookieJar();
    const response = await client.get(jar, '/');
    expect(response.status).toBe(302);
    const location = new URL(response.location!);
    expect(`${location.origin}${location.pathname}`).toBe(`${auth.issuer}/oauth2/v1/authorize`);
    const params = Object.fromEntries(location.searchParams);
    expect(params).toEqual({
      response_type: 'code',
      client_id: client.config.clientId,
      redirect_uri: `${client.url}/callback`,
      scope: 'openid profile email movies:read movies:write',
      state: expect.stringMatching(/^[\w-]{32,}$/),
      nonce: expect.stringMatching(/^[\w-]{32,}$/),
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge_method: 'S256',
    });
    expect(params.state).not.toBe(params.nonce);
    // The verifier stays server-side; the challenge is its S256 hash.
    const pending = await client.app.stores.logins.take(params.state!);
    expect(createHash('sha256').update(pending!.codeVerifier).digest('base64url')).toBe(params.code_challenge);
    expect(pending!.nonce).toBe(params.nonce);
    expect(setCookieLines(response.headers, sessionCookie())).toEqual([]);
    const login = setCookieLines(response.headers, client.config.cookies.login);
    expect(login).toHaveLength(1);
    expect(login[0]).toMatch(/; httponly/i);
    expect(login[0]).toMatch(/; samesite=lax/i);
    expect(await client.app.stores.sessions.count()).toBe(before);
  });

  it('gets a new state and nonce on every request', async () => {
    const a = new URL((await client.get(new CookieJar(), '/')).location!).searchParams;
    const b = new URL((await client.get(new CookieJar(), '/')).location!).searchParams;
    expect(a.get('state')).not.toBe(b.get('state'));
    expect(a.get('nonce')).not.toBe(b.get('nonce'));
    expect(a.get('code_challenge')).not.toBe(b.get('code_challenge'));
  });
});

describe('the callback', () => {
  it('creates an httpOnly SameSite=Lax session cookie and answers 302 to the landing page, which shows the user', async () => {
    const user = await auth.createUser({ name: 'Ada Lovelace', email: 'ada@example.com', groups: ['admins', 'users'] });
    const jar = new CookieJar();
    const callback = await client.login(jar, user);
    expect(callback.status).toBe(302);
    expect(callback.location).toBe('/');
    const cookie = setCookieLines(callback.headers, sessionCookie()).at(-1)!;
    expect(cookie).toMatch(new RegExp(`^${sessionCookie().replace('.', '\\.')}=[\\w-]{43};`));
    expect(cookie).toMatch(/; httponly/i);
    expect(cookie).toMatch(/; samesite=lax/i);
    expect(cookie).not.toMatch(/; secure/i);
    expect(callback.headers.getSetCookie().some((l) => l.startsWith(`${sessionCookie()}.sig=`))).toBe(true);

    const landing = await client.get(jar, '/');
    expect(landing.status).toBe(200);
    expect(landing.headers.get('content-type')).toMatch(/^text\/html/);
    expect(landing.text).toContain('<span id="user-name">Ada Lovelace</span>');
    expect(landing.text).toContain('<dd id="user-email">ada@example.com</dd>');
    expect(landing.text).toContain('<dd id="user-groups">admins, users</dd>');
    expect(landing.text).toMatch(/id="session-expires"><time datetime="[^"]+Z" data-local="relative" title="[^"]+ UTC">in \d+ (minutes|hours|days)<\/time>/);
    expect(landing.text).toMatch(/id="token-expires"><time datetime="[^"]+Z" data-local="relative" title="[^"]+ UTC">in \d+ minutes<\/time>/);
    expect(landing.headers.get('content-security-policy')).toBe(
      `default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self' ${auth.issuer}; frame-ancestors 'none'; base-uri 'none'`,
    );
    expect(landing.headers.get('cache-control')).toBe('no-store');
    // "Manage your account": the account page at the issuer, with this app's home as the way back, which the issuer accepts.
    const accountUrl = `${auth.issuer}/account?${new URLSearchParams({ client_id: client.config.clientId, return_to: `${client.url}/` })}`;
    expect(landing.text).toContain(`<p><a href="${accountUrl.replaceAll('&', '&amp;')}" id="manage-account">Manage your account</a></p>`);
    const account = await client.get(jar, accountUrl, { accept: 'text/html' });
    expect(account.status).toBe(200);
    expect(account.text).toContain(`<a href="${client.url}/" id="back-to-app">Back to ${client.config.clientId}</a>`);
    expect(landing.text).not.toContain('<script');
  });

  it('refuses a callback without state, and creates no session', async () => {
    const jar = new CookieJar();
    const response = await client.get(jar, '/callback?code=abc');
    expect(response.status).toBe(400);
    expect(response.text).toContain('<code id="error-code">invalid_state</code>');
    expect(response.text).toContain('The sign-in response carries no state.');
    expect(setCookieLines(response.headers, sessionCookie())).toEqual([]);
  });

  it('refuses an unknown state', async () => {
    const jar = new CookieJar();
    await client.get(jar, '/');
    const response = await client.get(jar, '/callback?code=abc&state=made-up');
    expect(response.status).toBe(400);
    expect(response.text).toContain('This sign-in response is unknown, expired or was already used.');
    expect(setCookieLines(response.headers, sessionCookie())).toEqual([]);
  });

  it('refuses a replayed callback', async () => {
    const user = await auth.createUser();
    const jar = new CookieJar();
    const start = await client.get(jar, '/');
    const authorize = new URL(start.location!);
    // Drive the login by hand to keep the callback URL.
    const callbackUrl = await (async () => {
      const page = await client.get(jar, authorize.href);
      const uid = /name="uid" value="([^"]+)"/.exec(page.text)![1]!;
      await client.post(jar, `${auth.issuer}/login`, { uid, username: user.username, password: user.password });
      const verify = await client.post(jar, `${auth.issuer}/mfa/verify`, { uid, code: await nextCode(auth, user) });
      return verify.location!;
    })();
    const first = await client.get(jar, callbackUrl);
    expect(first.status).toBe(302);
    const fresh = new CookieJar();
    for (const [k, v] of jar.cookies) if (!k.startsWith(sessionCookie())) fresh.cookies.set(k, v);
    const replay = await client.get(fresh, callbackUrl);
    expect(replay.status).toBe(400);
    expect(replay.text).toContain('<code id="error-code">invalid_state</code>');
    expect(replay.text).toContain('This sign-in response is unknown, expired or was already used.');
    expect(setCookieLines(replay.headers, sessionCookie())).toEqual([]);

    // The same replay from the browser that is signed in (Back after signing in): the landing
    // page, the session unchanged, nothing exchanged.
    const signedIn = await client.get(jar, callbackUrl);
    expect(signedIn.status).toBe(302);
    expect(signedIn.location).toBe('/');
    expect(setCookieLines(signedIn.headers, sessionCookie())).toEqual([]);
    expect((await client.get(jar, '/')).status).toBe(200);
  });

  it('refuses a state started by another browser', async () => {
    const victim = new CookieJar();
    const attacker = new CookieJar();
    const state = new URL((await client.get(attacker, '/')).location!).searchParams.get('state')!;
    await client.get(victim, '/');
    const response = await client.get(victim, `/callback?code=abc&state=${state}`);
    expect(response.status).toBe(400);
    expect(response.text).toContain('This sign-in was started in another browser.');
    expect(setCookieLines(response.headers, sessionCookie())).toEqual([]);
  });

  it('shows error=access_denied from the authorization server as an error page, and creates no session', async () => {
    const jar = new CookieJar();
    const state = new URL((await client.get(jar, '/')).location!).searchParams.get('state')!;
    const response = await client.get(jar, `/callback?error=access_denied&error_description=${encodeURIComponent('the <user> said no')}&state=${state}`);
    expect(response.status).toBe(403);
    expect(response.text).toContain('<code id="error-code">login_failed</code>');
    expect(response.text).toContain('The sign-in service answered &quot;access_denied&quot;: the &lt;user&gt; said no');
    expect(setCookieLines(response.headers, sessionCookie())).toEqual([]);
    expect((await client.get(jar, '/')).status).toBe(302);
  });

  it('shows a failed code exchange as an error page, and creates no session', async () => {
    const jar = new CookieJar();
    const state = new URL((await client.get(jar, '/')).location!).searchParams.get('state')!;
    const response = await client.get(jar, `/callback?code=not-a-code&state=${state}&iss=${encodeURIComponent(auth.issuer)}`);
    expect(response.status).toBe(400);
    expect(response.text).toContain('<code id="error-code">token_exchange_failed</code>');
    expect(setCookieLines(response.headers, sessionCookie())).toEqual([]);
  });
});

describe('behind a TLS-terminating proxy (TRUST_PROXY)', () => {
  it('marks the login and session cookies Secure', async () => {
    const proxied = await startClient({ auth, apiUrl: api.url, env: { TRUST_PROXY: 'true' } });
    try {
      const jar = new CookieJar();
      const https = { 'x-forwarded-proto': 'https' };
      const start = await proxied.get(jar, '/', https);
      expect(setCookieLines(start.headers, proxied.config.cookies.login)[0]).toMatch(/; secure/i);
      const callback = await proxied.login(new CookieJar(), await auth.createUser(), https);
      expect(callback.status).toBe(302);
      expect(setCookieLines(callback.headers, proxied.config.cookies.session).at(-1)).toMatch(/; secure/i);
    } finally {
      await proxied.close();
    }
  });
});

describe('cookies of other apps on the same host', () => {
  it('are ignored, signed-in or not', async () => {
    const jar = new CookieJar();
    jar.cookies.set('app-two.sid', 'garbage');
    jar.cookies.set('app-two.sid.sig', 'garbage');
    jar.cookies.set('gh_auth_session', 'whatever');
    jar.cookies.set('koa.sess', 'eyJ9');
    jar.cookies.set(sessionCookie(), 'forged-without-signature');
    const anonymous = await client.get(jar, '/');
    expect(anonymous.status).toBe(302);
    expect(new URL(anonymous.location!).pathname).toBe('/oauth2/v1/authorize');

    const user = await auth.createUser();
    const signedIn = new CookieJar();
    expect((await client.login(signedIn, user)).status).toBe(302);
    signedIn.cookies.set('app-two.sid', 'garbage');
    signedIn.cookies.set('other.sid', '%%%');
    const landing = await client.get(signedIn, '/');
    expect(landing.status).toBe(200);
    expect(landing.text).toContain('id="user-name"');
  });
});

describe('the landing page', () => {
  it('escapes what the ID token says about the user', async () => {
    const user = await auth.createUser({ name: '<img src=x onerror=alert(1)>', groups: ['a"b', '<g>'] });
    const jar = new CookieJar();
    await client.login(jar, user);
    const landing = await client.get(jar, '/');
    expect(landing.text).toContain('<span id="user-name">&lt;img src=x onerror=alert(1)&gt;</span>');
    expect(landing.text).toContain('<dd id="user-groups">a&quot;b, &lt;g&gt;</dd>');
    expect(landing.text).not.toContain('<img');
  });

  it("shows the API's refusal to list as a message", async () => {
    const noApiScopes = await startClient({ auth, apiUrl: api.url, env: { CLIENT_SCOPES: 'openid profile email' } });
    try {
      const jar = new CookieJar();
      await noApiScopes.login(jar, await auth.createUser());
      const landing = await noApiScopes.get(jar, '/');
      expect(landing.status).toBe(200);
      expect(landing.text).toContain(
        '<p class="error" role="alert" id="items-error">Could not list movies. The API answered 401 Unauthorized: the access token is not valid (invalid_token).</p>',
      );
      expect(landing.text).not.toContain('id="add-item"');
    } finally {
      await noApiScopes.close();
    }
  });

  it('answers unknown paths with a 404 page', async () => {
    const response = await client.get(new CookieJar(), '/nope');
    expect(response.status).toBe(404);
    expect(response.text).toContain('<code id="error-code">not_found</code>');
    expect(response.headers.get('x-request-id')).toMatch(/^[\w-]+$/);
  });
});
