/**
 * The device authorization grant (RFC 8628), driven by oauth4webapi as the device and over HTTP
 * as the user's browser at /activate (oidc/device-flow.ts, oidc/device-grant-answers.ts,
 * oidc/user-code-regulation.ts): discovery, per-client opt-in, approve, deny, slow polling,
 * an expired code, a wrong code, and codes used twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { capturingLogger, CookieJar, form, request, startServer, type TestAuthServer, type TestUser } from '../support/flow.ts';

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const TV = { clientId: 'living-room-tv', name: 'Living Room TV' };
const THIRD_PARTY = { clientId: 'partner-cli', name: 'Partner CLI' };
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;
const insecure = { [oauth.allowInsecureRequests]: true } as const;

const xsrfOf = (html: string) => /name="xsrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
const uidOf = (html: string) => /name="uid" value="([^"]+)"/.exec(html)?.[1] ?? '';
const textOf = (html: string, id: string) => new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(html)?.[1];
/** The stable code under a page's error message (docs/spec.md §7: `Error code: <code>…</code>`). */
const problemCodeOf = (html: string) => /<p class="muted">Error code: <code>([a-z_]+)<\/code><\/p>/.exec(html)?.[1];

describe.each(TEST_ENGINES)('device authorization grant on %s', (engine) => {
  let server: TestAuthServer;
  let as: oauth.AuthorizationServer;
  let offset = 0;
  const clock = () => Date.now() + offset;
  const tv: oauth.Client = { client_id: TV.clientId };
  const { logger, lines } = capturingLogger();
  /** The audit lines of `event` written so far, without their log envelope. */
  const audited = (event: string) =>
    lines.filter((line) => line.event === event).map(({ level: _l, time: _t, pid: _p, hostname: _h, name: _n, msg: _m, audit: _a, request_id: _r, ...fields }) => fields);

  beforeAll(async () => {
    server = await startServer({ engine, clock, logger });
    await server.app.services.clients.create({ ...TV, redirectUris: [], public: true, grantTypes: [DEVICE_CODE_GRANT, 'refresh_token'], firstParty: true });
    await server.app.services.clients.create({ ...THIRD_PARTY, redirectUris: [], public: true, grantTypes: [DEVICE_CODE_GRANT] });
    as = await oauth.processDiscoveryResponse(new URL(server.issuer), await oauth.discoveryRequest(new URL(server.issuer), insecure));
  });
  afterAll(() => server.close());

  async function authorizeDevice(client: oauth.Client = tv, scope = 'openid profile movies:read') {
    const response = await oauth.deviceAuthorizationRequest(as, client, oauth.None(), new URLSearchParams({ scope }), insecure);
    return oauth.processDeviceAuthorizationResponse(as, client, response);
  }

  /** One poll: the token response, or the OAuth error oauth4webapi reports. */
  async function poll(deviceCode: string, client: oauth.Client = tv): Promise<{ tokens: oauth.TokenEndpointResponse } | { error: string; description: string | undefined }> {
    const response = await oauth.deviceCodeGrantRequest(as, client, oauth.None(), deviceCode, insecure);
    try {
      return { tokens: await oauth.processDeviceCodeResponse(as, client, response) };
    } catch (error) {
      if (error instanceof oauth.ResponseBodyError) return { error: error.error, description: error.error_description };
      throw error;
    }
  }

  /** The browser enters the code at /activate: the confirmation page, or the page the code got. */
  async function enterCode(jar: CookieJar, userCode: string) {
    const page = await request(jar, `${server.issuer}/activate`);
    expect(page.status).toBe(200);
    return request(jar, `${server.issuer}/activate`, { method: 'POST', ...form({ xsrf: xsrfOf(page.text), user_code: userCode }) });
  }

  async function decide(jar: CookieJar, confirmPage: string, decision: 'confirm' | 'abort') {
    return request(jar, `${server.issuer}/activate`, {
      method: 'POST',
      ...form({ xsrf: xsrfOf(confirmPage), user_code: textOf(confirmPage, 'activate-code') ?? '', [decision]: 'yes' }),
    });
  }

  /** Password and TOTP on the login page the approval led to; the final page. */
  async function signIn(jar: CookieJar, loginPage: string, user: TestUser) {
    const uid = uidOf(loginPage);
    expect(uid).not.toBe('');
    const mfa = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) });
    expect(mfa.status).toBe(200);
    const code = await server.app.services.totp.generate(user.totpSecret, clock());
    return request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
  }

  it('discovery names the device authorization endpoint and the grant', async () => {
    expect(as.device_authorization_endpoint).toBe(`${server.issuer}/oauth2/v1/device/authorize`);
    expect(as.grant_types_supported).toContain(DEVICE_CODE_GRANT);
  });

  it('answers the device with an unambiguous user code, both verification URIs, expires_in 600 and interval 5', async () => {
    const da = await authorizeDevice();
    expect(da.user_code).toMatch(USER_CODE);
    expect(da.verification_uri).toBe(`${server.issuer}/activate`);
    expect(da.verification_uri_complete).toBe(`${server.issuer}/activate?user_code=${da.user_code}`);
    expect(da.expires_in).toBe(600);
    expect(da.interval).toBe(5);
    expect(await poll(da.device_code)).toEqual({ error: 'authorization_pending', description: 'authorization request is still pending as the end-user hasn\'t yet completed the user interaction steps' });
  });

  it('a client not registered for the grant is refused at both endpoints', async () => {
    const confidential: oauth.Client = { client_id: server.testClient.clientId };
    const auth = oauth.ClientSecretBasic(server.testClient.clientSecret);
    const response = await oauth.deviceAuthorizationRequest(as, confidential, auth, new URLSearchParams({ scope: 'openid' }), insecure);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'unauthorized_client', error_description: 'this client is not registered for the device authorization grant' });
    const token = await oauth.deviceCodeGrantRequest(as, confidential, auth, 'not-a-code', insecure);
    expect(token.status).toBe(400);
    expect(await token.json()).toEqual({ error: 'unauthorized_client', error_description: 'this client is not registered for the device authorization grant' });
  });

  it('approve: the user confirms the app and its scopes, signs in with password and TOTP, and the device gets tokens once', async () => {
    const da = await authorizeDevice();
    const jar = new CookieJar();
    // Typed in lower case without the dash: the same code.
    const confirm = await enterCode(jar, da.user_code.replace('-', '').toLowerCase());
    expect(confirm.status).toBe(200);
    expect(textOf(confirm.text, 'activate-client')).toBe(TV.name);
    expect(textOf(confirm.text, 'activate-code')).toBe(da.user_code);
    expect([...confirm.text.matchAll(/data-scope="([^"]+)"/g)].map((m) => m[1])).toEqual(['openid', 'profile', 'movies:read']);
    expect(confirm.text).toContain('You will sign in next.');

    const login = await decide(jar, confirm.text, 'confirm');
    expect(login.status).toBe(200);
    expect(login.text).toContain('<h1>Sign in</h1>');
    const done = await signIn(jar, login.text, await server.createUser());
    expect(done.status).toBe(200);
    expect(textOf(done.text, 'activate-done')).toContain(TV.name);
    expect(audited('device.approved').at(-1)).toEqual({ event: 'device.approved', client_id: TV.clientId, account_id: expect.any(String), ip: '127.0.0.1' });

    // The user code is single use: entered again it is "already used".
    const again = await enterCode(new CookieJar(), da.user_code);
    expect(again.status).toBe(400);
    expect(problemCodeOf(again.text)).toBe('user_code_used');
    expect(textOf(again.text, 'activate-problem')).toBe('That code has already been used. Start the sign-in again on your device to get a new code.');

    const result = await poll(da.device_code);
    if (!('tokens' in result)) throw new Error(`no tokens: ${JSON.stringify(result)}`);
    expect(result.tokens).toMatchObject({ token_type: 'bearer', scope: 'openid profile movies:read' });
    expect(typeof result.tokens.refresh_token).toBe('string');
    const jwks = createRemoteJWKSet(new URL(`${server.issuer}/oauth2/v1/keys`));
    const { payload } = await jwtVerify(result.tokens.access_token, jwks, { issuer: server.issuer, audience: server.audience, typ: 'at+jwt' });
    expect(payload).toMatchObject({ client_id: TV.clientId, scope: 'openid profile movies:read' });
    const claims = oauth.getValidatedIdTokenClaims(result.tokens);
    expect(claims?.amr).toEqual(['pwd', 'otp']);

    // The device code is single use: a second exchange is refused.
    expect(await poll(da.device_code)).toEqual({ error: 'invalid_grant', description: 'grant request is invalid' });
    // Once the device has its tokens, the user code is gone.
    const gone = await enterCode(new CookieJar(), da.user_code);
    expect(gone.status).toBe(400);
    expect(problemCodeOf(gone.text)).toBe('user_code_not_found');
  });

  it('with an SSO session the approval needs no sign-in, and the page names the account', async () => {
    const jar = new CookieJar();
    const first = await authorizeDevice();
    const login = await decide(jar, (await enterCode(jar, first.user_code)).text, 'confirm');
    const user = await server.createUser();
    expect((await signIn(jar, login.text, user)).status).toBe(200);

    const da = await authorizeDevice(tv, 'openid');
    const confirm = await enterCode(jar, da.user_code);
    expect(textOf(confirm.text, 'activate-username')).toBe(user.username);
    const done = await decide(jar, confirm.text, 'confirm');
    expect(done.status).toBe(200);
    expect(textOf(done.text, 'activate-done')).toContain(TV.name);
    expect('tokens' in (await poll(da.device_code))).toBe(true);
  });

  it('a client that is not first-party gets the consent step after the sign-in', async () => {
    const partner: oauth.Client = { client_id: THIRD_PARTY.clientId };
    const da = await authorizeDevice(partner, 'openid movies:read');
    const jar = new CookieJar();
    const login = await decide(jar, (await enterCode(jar, da.user_code)).text, 'confirm');
    const consent = await signIn(jar, login.text, await server.createUser());
    expect(consent.status).toBe(200);
    expect(consent.text).toContain(`Allow <span id="consent-client">${THIRD_PARTY.name}</span> to access your account?`);
    const done = await request(jar, `${server.issuer}/consent`, { method: 'POST', ...form({ uid: uidOf(consent.text), decision: 'allow' }) });
    expect(done.status).toBe(200);
    expect(textOf(done.text, 'activate-done')).toContain(THIRD_PARTY.name);
    const result = await poll(da.device_code, partner);
    expect('tokens' in result && result.tokens.scope).toBe('openid movies:read');
  });

  it('deny: the device gets access_denied, once, and the page says so with the way on', async () => {
    const da = await authorizeDevice();
    const jar = new CookieJar();
    const denied = await decide(jar, (await enterCode(jar, da.user_code)).text, 'abort');
    expect(denied.status).toBe(200);
    expect(problemCodeOf(denied.text)).toBe('access_denied');
    expect(textOf(denied.text, 'activate-problem')).toBe('You denied the request: the device is not signed in. To connect a device, enter its code.');
    expect(denied.text).toContain('id="user_code"');
    expect(audited('device.denied').at(-1)).toEqual({ event: 'device.denied', client_id: TV.clientId, ip: '127.0.0.1' });
    expect(await poll(da.device_code)).toEqual({ error: 'access_denied', description: 'End-User aborted interaction' });
    expect(await poll(da.device_code)).toEqual({ error: 'invalid_grant', description: 'grant request is invalid' });
    const again = await enterCode(new CookieJar(), da.user_code);
    expect(problemCodeOf(again.text)).toBe('user_code_used');
  });

  it('slow polling: a poll sooner than the interval gets slow_down, one after it authorization_pending', async () => {
    const da = await authorizeDevice();
    const pending = { error: 'authorization_pending', description: 'authorization request is still pending as the end-user hasn\'t yet completed the user interaction steps' };
    expect(await poll(da.device_code)).toEqual(pending);
    offset += 4_000;
    expect(await poll(da.device_code)).toEqual({ error: 'slow_down', description: 'poll at most every 5 seconds, and add 5 seconds to the interval after each slow_down' });
    // The slowed client waits interval + 5 s.
    offset += 10_000;
    expect(await poll(da.device_code)).toEqual(pending);
  });

  it('an expired code: the device gets expired_token, the page says the code is not valid or expired', async () => {
    const da = await authorizeDevice();
    offset += 601_000;
    expect(await poll(da.device_code)).toEqual({ error: 'expired_token', description: 'the device code has expired: start the device authorization again' });
    const page = await enterCode(new CookieJar(), da.user_code);
    expect(page.status).toBe(400);
    expect(problemCodeOf(page.text)).toBe('user_code_not_found');
  });

  it('a wrong code is 400 with the typed code kept in the field, and the page offers the form again', async () => {
    const before = audited('device.user_code.failure').length;
    const page = await enterCode(new CookieJar(), 'bcdf-ghjk');
    expect(page.status).toBe(400);
    expect(audited('device.user_code.failure').slice(before)).toEqual([{ event: 'device.user_code.failure', ip: '127.0.0.1' }]);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(problemCodeOf(page.text)).toBe('user_code_not_found');
    expect(page.text).toContain('value="bcdf-ghjk"');
    const empty = await enterCode(new CookieJar(), '');
    expect(empty.status).toBe(400);
    expect(problemCodeOf(empty.text)).toBe('user_code_missing');
  });

  it('a stale form (its token no longer valid) says so and offers the field again with a fresh token', async () => {
    const jar = new CookieJar();
    await request(jar, `${server.issuer}/activate`);
    const stale = await request(jar, `${server.issuer}/activate`, { method: 'POST', ...form({ xsrf: 'not-the-token', user_code: 'BCDF-GHJK' }) });
    expect(stale.status).toBe(400);
    expect(problemCodeOf(stale.text)).toBe('invalid_request');
    expect(textOf(stale.text, 'activate-problem')).toBe('This form could not be accepted (xsrf token invalid). Enter the code your device shows to try again.');
    const retried = await request(jar, `${server.issuer}/activate`, { method: 'POST', ...form({ xsrf: xsrfOf(stale.text), user_code: 'BCDF-GHJK' }) });
    expect(problemCodeOf(retried.text)).toBe('user_code_not_found');
    // The library's description is English: a German page says the refusal without it.
    const german = await request(jar, `${server.issuer}/activate`, { method: 'POST', headers: { ...form({}).headers, 'accept-language': 'de' }, body: form({ xsrf: 'not-the-token', user_code: 'BCDF-GHJK' }).body });
    expect(german.status).toBe(400);
    expect(german.text).toContain('<p class="muted">Fehlercode: <code>invalid_request</code></p>');
    expect(textOf(german.text, 'activate-problem')).toBe('Dieses Formular konnte nicht angenommen werden. Geben Sie den Code Ihres Geräts ein, um es erneut zu versuchen.');
  });

  it('a form submitted without the session it was shown in (none, or one that ended) is 400 with the way back', async () => {
    const ended = new CookieJar();
    const page = await request(ended, `${server.issuer}/activate`);
    await server.app.services.oidcAdapter.adapterFactory('Session').destroy(ended.cookies.get('gh_auth_session')!);
    for (const jar of [new CookieJar(), ended]) {
      const answer = await request(jar, `${server.issuer}/activate`, { method: 'POST', ...form({ xsrf: xsrfOf(page.text), user_code: 'BCDF-GHJK' }) });
      expect(answer.status).toBe(400);
      expect(problemCodeOf(answer.text)).toBe('invalid_request');
      expect(textOf(answer.text, 'activate-problem')).toBe('This form has expired, or it was opened in another browser. Enter the code your device shows to start again.');
      expect(answer.text).toContain('<a class="button secondary" href="/activate" id="activate-again">');
    }
  });

  it('the request metrics name the device routes by their patterns, never by a code', async () => {
    // A resume of an interaction this browser does not hold (no session): 400 with the way back, labelled by its pattern.
    const resume = await request(new CookieJar(), `${server.issuer}/activate/some-interaction-uid`);
    expect(resume.status).toBe(400);
    expect(problemCodeOf(resume.text)).toBe('invalid_request');
    expect(textOf(resume.text, 'activate-problem')).toBe('This sign-in step belongs to another browser, or it has ended. Enter the code your device shows to start again.');
    expect(resume.text).toContain('<a class="button secondary" href="/activate" id="activate-again">');
    // With a session but no resume cookie, oidc-provider answers with the code form.
    const jar = new CookieJar();
    await request(jar, `${server.issuer}/activate`);
    const foreign = await request(jar, `${server.issuer}/activate/some-interaction-uid`);
    expect(foreign.status).toBe(400);
    expect(problemCodeOf(foreign.text)).toBe('invalid_request');
    expect(foreign.text).toContain('id="user_code"');
    const text = await server.app.metrics.metrics();
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/activate\/:uid",status="400"\} 2/);
    expect(text).toMatch(/http_requests_total\{method="POST",route="\/oauth2\/v1\/device\/authorize",status="200"\} \d+/);
    expect(text).toMatch(/http_requests_total\{method="POST",route="\/activate",status="400"\} \d+/);
    expect(text).not.toContain('some-interaction-uid');
  });

  it('an unknown device code is invalid_grant', async () => {
    expect(await poll('no-such-code')).toEqual({ error: 'invalid_grant', description: 'grant request is invalid' });
  });
});

describe('guessing user codes', () => {
  let server: TestAuthServer;

  beforeAll(async () => {
    server = await startServer({ env: { AUTH_REGULATION_IP_MAX_RETRIES: '3', AUTH_REGULATION_BAN_TIME: '300' } });
  });
  afterAll(() => server.close());

  it('wrong codes count against the address: after three, 429 with Retry-After, even for a real code', async () => {
    const jar = new CookieJar();
    // Each page carries the form token for the next submission.
    let page = await request(jar, `${server.issuer}/activate`);
    const submit = async (userCode: string) => {
      page = await request(jar, `${server.issuer}/activate`, { method: 'POST', ...form({ xsrf: xsrfOf(page.text), user_code: userCode }) });
      return page;
    };
    for (const guess of ['BBBB-BBBB', 'CCCC-CCCC', 'DDDD-DDDD']) {
      const wrong = await submit(guess);
      expect(wrong.status).toBe(400);
      expect(problemCodeOf(wrong.text)).toBe('user_code_not_found');
    }
    const refused = await submit('FFFF-FFFF');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('300');
    expect(textOf(refused.text, 'activate-wait')).toBe('Too many wrong codes were entered from your network. Wait 300 seconds, then enter the code again.');
    expect(refused.text).toContain('<a class="button secondary" href="/activate" id="activate-again">');
  });
});
