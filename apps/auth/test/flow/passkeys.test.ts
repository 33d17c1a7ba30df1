/**
 * Passkeys over HTTP, with a software authenticator: registration on the devices page,
 * passwordless sign-in (both factors, no /mfa/verify), the second factor after a password,
 * removal; each refusal with its status, code and audit event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { jsonBody } from '../support/index.ts';
import { authorizeUrl, codeFrom, decodeJwt, exchange, form, request, signIn, startServer, uidOf, type CookieJar, type TestAuthServer, type TestUser } from '../support/flow.ts';
import { browser, captureLogger, passwordStep } from '../support/push.ts';
import { SoftAuthenticator, type Overrides } from '../support/soft-authenticator.ts';

describe.each(TEST_ENGINES)('passkeys on %s', (engine) => {
  let server: TestAuthServer;
  const clock = () => Date.now();
  const log = captureLogger();

  beforeAll(async () => {
    server = await startServer({ clock, engine, env: { TRUST_PROXY: 'true' }, logger: log.logger });
  });
  afterAll(() => server.close());

  const accountIdOf = async (user: TestUser) => (await server.app.services.accounts.findByUsername(user.username))!.id;

  /** Signs `user` in (password + TOTP) and registers a passkey of `soft` on the devices page. */
  async function withPasskey(user?: TestUser, soft = new SoftAuthenticator(server.issuer), name = 'My laptop') {
    user ??= await server.createUser();
    const jar = browser();
    expect((await signIn(server, jar, user, authorizeUrl(server))).status).toBe(302);
    const options = await request(jar, `${server.issuer}/authenticator/passkeys/options`, { method: 'POST', ...jsonBody({}) });
    expect(options.status).toBe(200);
    const registered = await request(jar, `${server.issuer}/authenticator/passkeys`, {
      method: 'POST',
      ...jsonBody({ name, credential: JSON.stringify(soft.register(options.json())) }),
    });
    expect(registered.status).toBe(201);
    return { user, jar, soft, id: registered.json<{ id: string }>().id };
  }

  /** A new authorization at the test client, answered with a passkey on the login page. */
  async function passwordless(soft: SoftAuthenticator, overrides: Overrides = {}, jar: CookieJar = browser(), state = 'st-1') {
    const uid = uidOf((await request(jar, authorizeUrl(server, { state }))).text);
    const options = await request(jar, `${server.issuer}/login/passkey/options`, { method: 'POST', ...jsonBody({ uid }) });
    expect(options.status).toBe(200);
    const credential = JSON.stringify(soft.authenticate(options.json(), overrides));
    const res = await request(jar, `${server.issuer}/login/passkey`, { method: 'POST', ...form({ uid, credential }) });
    return { res, jar, uid, credential, options: options.json<Record<string, unknown>>() };
  }

  it('registers passkeys on the account page: named, listed with their last use, audited', async () => {
    const { user, jar, soft, id } = await withPasskey();
    const accountId = await accountIdOf(user);
    expect(id).toBe(soft.credentials[0]!.id);
    const page = await request(jar, `${server.issuer}/account`, { headers: { accept: 'application/json' } });
    expect(page.json<{ passkeys: unknown[] }>().passkeys).toEqual([{ id, name: 'My laptop', created_at: expect.any(String), last_used_at: null }]);
    const html = await request(jar, `${server.issuer}/account/security`);
    expect(html.text).toContain('<strong>My laptop</strong>');
    expect(html.text).toContain('<script src="/static/simplewebauthn-browser.js" defer></script>');
    expect(html.text).toContain(`name="credential_id" value="${id}"`);
    expect(log.audits('passkey.registered').filter((l) => l.account_id === accountId)).toEqual([
      expect.objectContaining({ event: 'passkey.registered', account_id: accountId, credential_id: id, device_type: 'singleDevice' }),
    ]);

    // A second one, then the options exclude both.
    const second = new SoftAuthenticator(server.issuer, { synced: true });
    const options = await request(jar, `${server.issuer}/authenticator/passkeys/options`, { method: 'POST', ...jsonBody({}) });
    expect(options.json()).toMatchObject({ rp: { id: '127.0.0.1', name: 'Gatehouse' }, attestation: 'none', user: { name: user.username } });
    expect(options.json<{ excludeCredentials: { id: string }[] }>().excludeCredentials.map((c) => c.id)).toEqual([id]);
    const answer = JSON.stringify(second.register(options.json()));
    expect((await request(jar, `${server.issuer}/authenticator/passkeys`, { method: 'POST', ...jsonBody({ name: 'Phone', credential: answer }) })).status).toBe(201);
    // The same answer again: its challenge is used up.
    const replay = await request(jar, `${server.issuer}/authenticator/passkeys`, { method: 'POST', ...jsonBody({ name: 'Phone', credential: answer }) });
    expect(replay.status).toBe(400);
    expect(replay.json()).toEqual({ error: 'passkey_challenge_invalid', error_description: 'This passkey request expired or was already used. Try again.' });
    expect(await server.app.services.passkeys.countByAccount(accountId)).toBe(2);
  });

  it('refuses a registration without a session, cross-site, from another origin, or without a name', async () => {
    const { jar } = await withPasskey();
    const anonymous = await request(browser(), `${server.issuer}/authenticator/passkeys/options`, { method: 'POST', ...jsonBody({}) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: 'login_required' });
    const cross = await request(jar, `${server.issuer}/authenticator/passkeys/options`, { method: 'POST', headers: { ...jsonBody({}).headers, 'sec-fetch-site': 'cross-site' }, body: '{}' });
    expect(cross.status).toBe(403);
    const options = await request(jar, `${server.issuer}/authenticator/passkeys/options`, { method: 'POST', ...jsonBody({}) });
    const soft = new SoftAuthenticator(server.issuer);
    const foreign = await request(jar, `${server.issuer}/authenticator/passkeys`, {
      method: 'POST',
      ...jsonBody({ name: 'x', credential: JSON.stringify(soft.register(options.json(), { origin: 'http://evil.test' })) }),
    });
    expect(foreign.status).toBe(400);
    expect(foreign.json()).toMatchObject({ error: 'passkey_invalid' });
    expect(log.audits('passkey.registration.refused')).toContainEqual(expect.objectContaining({ reason: 'verification_failed' }));
    const unnamed = await request(jar, `${server.issuer}/authenticator/passkeys`, { method: 'POST', ...jsonBody({ name: '\u0007', credential: '{}' }) });
    expect(unnamed.status).toBe(400);
    expect(unnamed.json()).toMatchObject({ error: 'invalid_request' });
    const garbage = await request(jar, `${server.issuer}/authenticator/passkeys`, { method: 'POST', ...jsonBody({ name: 'x', credential: '{"type":"public-key"}' }) });
    expect(garbage.status).toBe(400);
    expect(garbage.json()).toEqual({ error: 'invalid_request', error_description: 'The passkey answer is malformed. Try again.' });
  });

  it('signs in passwordless: 302 to the client with code and state and the SSO cookie, amr hwk + user, no second step', async () => {
    const { user, soft, id } = await withPasskey();
    const accountId = await accountIdOf(user);
    const login = await request(browser(), authorizeUrl(server));
    expect(login.text).toContain('Sign in with a passkey');
    expect(login.text).toContain('autocomplete="username webauthn"');
    expect(login.text).toContain('<script src="/static/passkey.js" defer></script>');

    const { res, jar, options } = await passwordless(soft, {}, browser(), 'state-passwordless');
    expect(options).toMatchObject({ rpId: '127.0.0.1', userVerification: 'required', allowCredentials: [] });
    expect(res.status).toBe(302);
    const location = new URL(res.location!);
    expect(`${location.origin}${location.pathname}`).toBe(server.testClient.redirectUri);
    expect(location.searchParams.get('state')).toBe('state-passwordless');
    expect(jar.cookies.has('gh_auth_session')).toBe(true);
    // A completed sign-in makes the browser a known device of the account (brute-force policy).
    expect(jar.cookies.has('gatehouse.device')).toBe(true);
    const tokens = await exchange(server, codeFrom(res.location));
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.id_token as string)).toMatchObject({ sub: accountId, amr: ['hwk', 'user'] });
    expect(log.audits('login.passkey.success')).toContainEqual(expect.objectContaining({ account_id: accountId, credential_id: id }));
    expect((await server.app.services.passkeys.find(id))!.lastUsedAt).not.toBeNull();

    // A synced passkey is a software key: swk.
    const synced = await withPasskey(undefined, new SoftAuthenticator(server.issuer, { synced: true, counter: false }));
    const second = await passwordless(synced.soft);
    expect(second.res.status).toBe(302);
    expect(decodeJwt((await exchange(server, codeFrom(second.res.location))).body.id_token as string)).toMatchObject({ amr: ['swk', 'user'] });
  });

  it('refuses passwordless answers: wrong origin, wrong RP ID, wrong or replayed challenge, no user verification', async () => {
    const { soft } = await withPasskey();
    const wrongOrigin = await passwordless(soft, { origin: 'http://127.0.0.1:1' });
    expect(wrongOrigin.res.status).toBe(401);
    expect(wrongOrigin.res.text).toContain('The passkey answer could not be verified. Try again.');
    expect(wrongOrigin.res.headers.get('content-security-policy')).toContain(`form-action 'self' ${new URL(server.testClient.redirectUri).origin}`);
    expect((await passwordless(soft, { rpId: 'localhost' })).res.status).toBe(401);
    const wrongChallenge = await passwordless(soft, { challenge: 'bm90LWlzc3VlZA' });
    expect(wrongChallenge.res.status).toBe(401);
    expect(wrongChallenge.res.text).toContain('This passkey request expired or was already used.');
    const noUv = await passwordless(soft, { userVerified: false });
    expect(noUv.res.status).toBe(401);
    expect(noUv.res.text).toContain('did not verify you');

    // A good answer replayed on a new login (its challenge belonged to another interaction, and is used).
    const good = await passwordless(soft);
    expect(good.res.status).toBe(302);
    const jar = browser();
    const uid = uidOf((await request(jar, authorizeUrl(server))).text);
    const replay = await request(jar, `${server.issuer}/login/passkey`, { method: 'POST', ...jsonBody({ uid, credential: good.credential }) });
    expect(replay.status).toBe(401);
    expect(replay.json()).toEqual({ error: 'passkey_challenge_invalid', error_description: 'This passkey request expired or was already used. Try again.', next: '/login' });
    expect(log.audits('login.passkey.failure').map((l) => l.reason)).toEqual(
      expect.arrayContaining(['verification_failed', 'invalid_challenge', 'user_not_verified']),
    );
  });

  it('names the stable code on the login page of every passwordless refusal (HTML like JSON)', async () => {
    const { soft } = await withPasskey();
    const wrongOrigin = await passwordless(soft, { origin: 'http://127.0.0.1:1' });
    expect(wrongOrigin.res.status).toBe(401);
    expect(wrongOrigin.res.text).toContain('<p class="muted">Error code: <code>passkey_invalid</code></p>');
    const jar = browser();
    const uid = uidOf((await request(jar, authorizeUrl(server))).text);
    const missing = await request(jar, `${server.issuer}/login/passkey`, { method: 'POST', ...form({ uid }) });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('Field &quot;credential&quot; is required.');
    expect(missing.text).toContain('<p class="muted">Error code: <code>invalid_request</code></p>');
  });

  it('refuses a counter that went backwards (a cloned key), audits it, and keeps the stored counter', async () => {
    const { user, soft, id } = await withPasskey();
    const accountId = await accountIdOf(user);
    expect((await passwordless(soft, { counter: 10 })).res.status).toBe(302);
    const clone = await passwordless(soft, { counter: 4 }, browser());
    expect(clone.res.status).toBe(401);
    expect(clone.res.text).toContain('may have been copied');
    expect(log.audits('passkey.clone_suspected')).toContainEqual(
      expect.objectContaining({ account_id: accountId, credential_id: id, stored_counter: 10, presented_counter: 4 }),
    );
    expect(log.audits('login.passkey.failure')).toContainEqual(expect.objectContaining({ account_id: accountId, credential_id: id, reason: 'counter_regression' }));
    expect((await server.app.services.passkeys.find(id))!.counter).toBe(10);
  });

  it('passwordless failures count toward the account (brute-force policy); a waiting account is refused even with a good passkey', async () => {
    const { user, soft } = await withPasskey();
    const accountId = await accountIdOf(user);
    for (let i = 0; i < 5; i += 1) {
      // A new IP each time: the account's own counter bans it.
      expect((await passwordless(soft, { origin: 'http://evil.test' })).res.status).toBe(401);
    }
    // Five failures start the account's progressive delay (AUTH_REGULATION_DELAY_AFTER, 30 s).
    const banned = await passwordless(soft);
    expect(banned.res.status).toBe(429);
    expect(banned.res.headers.get('retry-after')).toBe('30');
    expect(banned.res.text).toContain('Too many attempts.');
    expect(log.audits('login.throttled')).toContainEqual(
      expect.objectContaining({ username: user.username, account_id: accountId, step: 'passkey', known_device: false, retry_after: 30 }),
    );
  });

  it('is a second factor after the password: offered, amr pwd + hwk + user, audited', async () => {
    const { user, soft, id } = await withPasskey();
    const accountId = await accountIdOf(user);
    const { jar, uid, page } = await passwordStep(server, user);
    expect(page.text).toContain('Use a passkey or security key');
    const json = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ uid, code: '000000x' }) });
    expect(json.json<{ methods: string[] }>().methods).toEqual(['totp', 'passkey']);
    const options = await request(jar, `${server.issuer}/mfa/passkey/options`, { method: 'POST', ...jsonBody({ uid }) });
    expect(options.status).toBe(200);
    expect(options.json()).toMatchObject({ userVerification: 'preferred', allowCredentials: [{ id, type: 'public-key', transports: ['internal'] }] });
    const done = await request(jar, `${server.issuer}/mfa/verify`, {
      method: 'POST',
      ...form({ uid, method: 'passkey', credential: JSON.stringify(soft.authenticate(options.json())) }),
    });
    expect(done.status).toBe(302);
    expect(jar.cookies.has('gh_auth_session')).toBe(true);
    expect(decodeJwt((await exchange(server, codeFrom(done.location))).body.id_token as string)).toMatchObject({ amr: ['pwd', 'hwk', 'user'] });
    expect(log.audits('login.mfa.success')).toContainEqual(expect.objectContaining({ account_id: accountId, method: 'passkey', credential_id: id }));
  });

  it('as a second factor, refuses another user’s passkey and counts wrong answers toward the lockout', async () => {
    const alice = await withPasskey();
    const bob = await withPasskey();
    const { jar, uid } = await passwordStep(server, alice.user);
    const options = await request(jar, `${server.issuer}/mfa/passkey/options`, { method: 'POST', ...jsonBody({ uid }) });
    const foreign = await request(jar, `${server.issuer}/mfa/verify`, {
      method: 'POST',
      ...jsonBody({ uid, method: 'passkey', credential: JSON.stringify(bob.soft.authenticate({ ...options.json<{ challenge: string }>(), allowCredentials: [] })) }),
    });
    expect(foreign.status).toBe(401);
    expect(foreign.json()).toMatchObject({ error: 'passkey_unknown', status: 'mfa_required' });
    for (let i = 0; i < 4; i += 1) {
      const again = await request(jar, `${server.issuer}/mfa/passkey/options`, { method: 'POST', ...jsonBody({ uid }) });
      const bad = await request(jar, `${server.issuer}/mfa/verify`, {
        method: 'POST',
        ...jsonBody({ uid, method: 'passkey', credential: JSON.stringify(alice.soft.authenticate(again.json(), { origin: 'http://evil.test' })) }),
      });
      expect(bad.status).toBe(401);
      expect(bad.json()).toMatchObject({ error: 'passkey_invalid' });
    }
    const last = await request(jar, `${server.issuer}/mfa/passkey/options`, { method: 'POST', ...jsonBody({ uid }) });
    const banned = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ uid, method: 'passkey', credential: JSON.stringify(alice.soft.authenticate(last.json())) }) });
    expect(banned.status).toBe(429);
    expect(banned.json()).toMatchObject({ error: 'too_many_attempts' });
    expect(log.audits('login.mfa.failure')).toContainEqual(expect.objectContaining({ method: 'passkey', reason: 'passkey_invalid' }));
  });

  it('a removed passkey no longer signs in; only its owner can remove it', async () => {
    const { user, jar, soft, id } = await withPasskey();
    const accountId = await accountIdOf(user);
    const other = await withPasskey();
    const foreign = await request(other.jar, `${server.issuer}/authenticator/passkeys/remove`, { method: 'POST', ...form({ credential_id: id }) });
    expect(foreign.status).toBe(404);
    const removed = await request(jar, `${server.issuer}/authenticator/passkeys/remove`, { method: 'POST', ...form({ credential_id: id }) });
    expect(removed.status).toBe(303);
    expect(removed.location).toBe('/account/security');
    expect(log.audits('passkey.removed')).toContainEqual(expect.objectContaining({ account_id: accountId, credential_id: id, via: 'devices_page' }));
    const refused = await passwordless(soft);
    expect(refused.res.status).toBe(401);
    expect(refused.res.text).toContain('This passkey is not registered with Gatehouse');
    const { jar: mfaJar, uid } = await passwordStep(server, user);
    const noneLeft = await request(mfaJar, `${server.issuer}/mfa/passkey/options`, { method: 'POST', ...jsonBody({ uid }) });
    expect(noneLeft.status).toBe(404);
    expect(noneLeft.json()).toMatchObject({ error: 'passkey_unknown' });
  });

  it('answers malformed or hostile answers with a 4xx, never a 500', async () => {
    const { jar, soft } = await withPasskey();
    const cdj = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const bad = [
      'not json',
      'null',
      '[]',
      '{"type":"public-key"}',
      JSON.stringify({ id: 'a', rawId: 'a', type: 'public-key', response: { clientDataJSON: cdj(null), authenticatorData: 'AA', signature: 'AA' } }),
      JSON.stringify({ id: 'a', rawId: 'a', type: 'public-key', response: { clientDataJSON: cdj({ challenge: 5 }), authenticatorData: 'AA', signature: 'AA' } }),
      JSON.stringify({ id: 'a', rawId: 'a', type: 'public-key', response: { clientDataJSON: 'AA', authenticatorData: 'AA', signature: 'AA' } }),
      JSON.stringify({ id: 'a+/', rawId: 'a', type: 'public-key', response: { clientDataJSON: cdj({ challenge: 'x' }), authenticatorData: 'AA', signature: 'AA' } }),
      'x'.repeat(13_000),
    ];
    for (const credential of bad) {
      const page = await request(jar, `${server.issuer}/authenticator/passkeys`, { method: 'POST', ...jsonBody({ name: 'x', credential }) });
      expect([400, 401]).toContain(page.status);
      const login = browser();
      const loginUid = uidOf((await request(login, authorizeUrl(server))).text);
      const res = await request(login, `${server.issuer}/login/passkey`, { method: 'POST', ...jsonBody({ uid: loginUid, credential }) });
      expect([400, 401]).toContain(res.status);
    }
    // A real assertion whose pieces were tampered with after signing.
    const options = await request(jar, `${server.issuer}/authenticator/passkeys/options`, { method: 'POST', ...jsonBody({}) });
    const answer = soft.register(options.json()) as { response: Record<string, unknown> };
    answer.response.transports = 'usb';
    answer.response.attestationObject = 'oWNmbXRkbm9uZQ';
    const tampered = await request(jar, `${server.issuer}/authenticator/passkeys`, { method: 'POST', ...jsonBody({ name: 'x', credential: JSON.stringify(answer) }) });
    expect(tampered.status).toBe(400);
    expect(tampered.json()).toMatchObject({ error: 'passkey_invalid' });
    // Transports are not signed: junk there is dropped, not stored.
    const next = await request(jar, `${server.issuer}/authenticator/passkeys/options`, { method: 'POST', ...jsonBody({}) });
    const junk = soft.register(next.json()) as { id: string; response: Record<string, unknown> };
    junk.response.transports = ['usb', 5, 'x'.repeat(100)];
    expect((await request(jar, `${server.issuer}/authenticator/passkeys`, { method: 'POST', ...jsonBody({ name: 'y', credential: JSON.stringify(junk) }) })).status).toBe(201);
    expect((await server.app.services.passkeys.find(junk.id))!.transports).toEqual(['usb']);
  });

  it('refuses options and answers for an interaction that is not this browser’s', async () => {
    const res = await request(browser(), `${server.issuer}/login/passkey/options`, { method: 'POST', ...jsonBody({ uid: 'nope' }) });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ error: 'interaction_expired' });
    const answer = await request(browser(), `${server.issuer}/login/passkey`, { method: 'POST', ...form({ uid: 'nope', credential: '{}' }) });
    expect(answer.status).toBe(400);
  });
});
