/**
 * An account with a second factor but no TOTP (a device, a passkey, recovery codes) is asked for
 * one of its factors after the password, never offered the TOTP enrollment: the password alone
 * never adds a second factor. A TOTP code or "Start over" posted for such an account enrols
 * nothing. Only an account without any second factor enrols.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { jsonBody } from '../support/index.ts';
import { authorizeUrl, codeFrom, decodeJwt, exchange, form, request, signIn, startServer, type CookieJar, type TestAuthServer, type TestUser } from '../support/flow.ts';
import { browser, enrollDevice, passwordStep, poll, pushId, sendPush, type Waiting } from '../support/push.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';
import { generateRecoveryCodes } from '../../src/recovery/recovery-codes.ts';

const FACTOR_NOT_ENROLLED = 'This account has no authenticator app set up. Use another method.';

describe.each(TEST_ENGINES)('a second factor without TOTP on %s', (engine) => {
  let server: TestAuthServer;
  const clock = () => Date.now();

  beforeAll(async () => {
    server = await startServer({ clock, engine, env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => server.close());

  const accountIdOf = async (user: TestUser) => (await server.app.services.accounts.findByUsername(user.username))!.id;
  /** Leaves the account its other factors only: no TOTP secret, no recovery codes. */
  async function withoutTotp(user: TestUser) {
    const id = await accountIdOf(user);
    await server.app.services.accounts.setTotpSecret(id, null);
    await server.app.services.recoveryCodes.removeAll(id);
    return id;
  }
  /** A browser's navigation: a same-origin form post of a page (Sec-Fetch-Dest: document). */
  const navigation = (fields: Record<string, string>) => {
    const body = form(fields);
    return { method: 'POST', headers: { ...body.headers, origin: server.issuer, 'sec-fetch-dest': 'document', accept: 'text/html' }, body: body.body };
  };
  const page = (jar: CookieJar, uid: string) => request(jar, `${server.issuer}/interaction/${uid}`, { headers: { accept: 'text/html' } });
  const passwordJson = (jar: CookieJar, uid: string, user: TestUser) => request(jar, `${server.issuer}/login`, { method: 'POST', ...jsonBody({ uid, username: user.username, password: user.password }) });

  it('a device but no TOTP: the password step asks for the push, no enrollment; the push signs in', async () => {
    const user = await server.createUser();
    const { authenticator } = await enrollDevice(server, user, clock);
    const accountId = await withoutTotp(user);

    const { jar, uid, page: html } = await passwordStep(server, user);
    expect(html.text).not.toContain('totp-secret');
    expect(html.text).not.toContain('/mfa/enrollment/restart');
    expect(await server.app.services.totpEnrollments.pendingSecret(accountId)).toBeUndefined();
    const offered = await passwordJson(jar, uid, user);
    expect(offered.status).toBe(200);
    expect(offered.json()).toEqual({ status: 'mfa_required', next: '/mfa/verify', methods: ['push'] });

    const started = await sendPush(server, jar);
    expect(started.status).toBe(200);
    const waiting = started.json<Waiting>();
    expect(waiting).toMatchObject({ status: 'push_waiting', state: 'PENDING', methods: ['push'] });
    expect((await authenticator.answer(pushId(waiting), 'approve', waiting.number)).status).toBe(200);
    const done = await poll(server, jar, waiting, true);
    expect(done.status).toBe(302);
    expect(jar.cookies.has('gh_auth_session')).toBe(true);
    expect(await server.app.services.accounts.getTotpSecret(accountId)).toBeUndefined();
  });

  it('a passkey but no TOTP: the password step asks for the passkey, which signs in', async () => {
    const user = await server.createUser();
    const soft = new SoftAuthenticator(server.issuer);
    const signedIn = browser();
    expect((await signIn(server, signedIn, user, authorizeUrl(server))).status).toBe(302);
    const options = await request(signedIn, `${server.issuer}/authenticator/passkeys/options`, { method: 'POST', ...jsonBody({}) });
    const registered = await request(signedIn, `${server.issuer}/authenticator/passkeys`, { method: 'POST', ...jsonBody({ name: 'Laptop', credential: JSON.stringify(soft.register(options.json())) }) });
    expect(registered.status).toBe(201);
    const accountId = await withoutTotp(user);

    const { jar, uid, page: html } = await passwordStep(server, user);
    expect(html.text).not.toContain('totp-secret');
    expect(html.text).toContain('Use a passkey or security key');
    expect(await server.app.services.totpEnrollments.pendingSecret(accountId)).toBeUndefined();
    expect((await passwordJson(jar, uid, user)).json()).toEqual({ status: 'mfa_required', next: '/mfa/verify', methods: ['passkey'] });
    const challenge = await request(jar, `${server.issuer}/mfa/passkey/options`, { method: 'POST', ...jsonBody({ uid }) });
    expect(challenge.status).toBe(200);
    const done = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, method: 'passkey', credential: JSON.stringify(soft.authenticate(challenge.json())) }) });
    expect(done.status).toBe(302);
    expect(decodeJwt((await exchange(server, codeFrom(done.location))).body.id_token as string)).toMatchObject({ amr: ['pwd', 'hwk', 'user'] });
  });

  it('recovery codes only: the password step asks for a recovery code, which signs in', async () => {
    const user = await server.createUser();
    const accountId = await withoutTotp(user);
    const codes = generateRecoveryCodes();
    await server.app.services.recoveryCodes.store(accountId, codes);

    const { jar, uid, page: html } = await passwordStep(server, user);
    expect(html.text).not.toContain('totp-secret');
    expect(await server.app.services.totpEnrollments.pendingSecret(accountId)).toBeUndefined();
    expect((await passwordJson(jar, uid, user)).json()).toEqual({ status: 'mfa_required', next: '/mfa/verify', methods: ['recovery'] });
    const done = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, method: 'recovery', code: codes[0]! }) });
    expect(done.status).toBe(302);
    expect(await server.app.services.recoveryCodes.remaining(accountId)).toBe(9);
  });

  it('a TOTP code posted for such an account enrols nothing: 400 factor_not_enrolled, 303 and the message once for a browser', async () => {
    const user = await server.createUser();
    await enrollDevice(server, user, clock);
    const accountId = await withoutTotp(user);
    const { jar, uid } = await passwordStep(server, user);
    // Any secret the attacker chose: its code is refused, the account keeps no TOTP.
    const secret = server.app.services.totp.generateSecret();
    const code = await server.app.services.totp.generate(secret, clock());

    const json = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ uid, code }) });
    expect(json.status).toBe(400);
    expect(json.json()).toEqual({ error: 'factor_not_enrolled', error_description: FACTOR_NOT_ENROLLED, status: 'mfa_required', next: '/mfa/verify', methods: ['push'] });

    const posted = await request(jar, `${server.issuer}/mfa/verify`, navigation({ uid, code }));
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(`/interaction/${uid}`);
    const shown = await page(jar, uid);
    expect(shown.status).toBe(400);
    expect(shown.text).toContain(`<p class="error" role="alert">${FACTOR_NOT_ENROLLED}</p>\n<p class="muted">Error code: <code>factor_not_enrolled</code></p>`);
    expect(shown.text).not.toContain('totp-secret');
    const reload = await page(jar, uid);
    expect(reload.status).toBe(200);
    expect(reload.text).not.toContain('class="error"');

    expect(await server.app.services.accounts.getTotpSecret(accountId)).toBeUndefined();
    expect(await server.app.services.totpEnrollments.pendingSecret(accountId)).toBeUndefined();
  });

  it('"Start over" posted for such an account makes no key: 303 back to the challenge, JSON without an enrollment', async () => {
    const user = await server.createUser();
    await enrollDevice(server, user, clock);
    const accountId = await withoutTotp(user);
    const { jar, uid } = await passwordStep(server, user);

    const posted = await request(jar, `${server.issuer}/mfa/enrollment/restart`, navigation({ uid }));
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(`/interaction/${uid}`);
    const shown = await page(jar, uid);
    expect(shown.status).toBe(200);
    expect(shown.text).not.toContain('totp-secret');
    const json = await request(jar, `${server.issuer}/mfa/enrollment/restart`, { method: 'POST', ...jsonBody({ uid }) });
    expect(json.status).toBe(200);
    expect(json.json()).toEqual({ status: 'mfa_required', next: '/mfa/verify', methods: ['push'] });
    expect(await server.app.services.totpEnrollments.pendingSecret(accountId)).toBeUndefined();
  });

  it('an account without any second factor still enrols TOTP right after its password', async () => {
    const user = await server.createUser();
    const accountId = await withoutTotp(user);
    const { jar, uid, page: html } = await passwordStep(server, user);
    expect(html.text).toContain('id="totp-secret"');
    const secret = await server.app.services.totpEnrollments.pendingSecret(accountId);
    expect(secret).toMatch(/^[A-Z2-7]+$/);
    expect((await passwordJson(jar, uid, user)).json()).toEqual({ status: 'mfa_required', next: '/mfa/verify', methods: ['totp'], enrollment: { secret, otpauth_uri: expect.stringMatching(/^otpauth:\/\/totp\//), restart: '/mfa/enrollment/restart' } });
  });
});
