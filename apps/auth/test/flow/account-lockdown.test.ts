/**
 * Lockdown that holds (accounts/end-account-access.ts), on SQLite and PostgreSQL: for each verb
 * that locks an account down — `disable`, `passwd`, `reset-mfa`, `remove`, from authctl and from
 * the admin API, and a password change or TOTP re-enrolment on the account page — a browser that
 * signed in first must sign in again (authorize answers the login page, not a code), its refresh
 * token answers invalid_grant, its access token is inactive, and resource servers hear it on the
 * revocation feed. `enable` gives back the right to sign in, never the session. The account page
 * keeps the browser that made the change signed in. Time moves only by the injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { runCli } from '../../src/cli/run-cli.ts';
import { FEED_SETTLE_MS } from '../../src/revocation/revocation-store.ts';
import { addAdminClient, call, machineToken } from '../admin/admin-support.ts';
import { jsonBody } from '../support/index.ts';
import { authorizeUrl, codeFrom, CookieJar, decodeJwt, exchange, form, introspect, refresh, request, signIn, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';

const SEC = 1000;

describe.each(TEST_ENGINES)('account lockdown on %s', (engine) => {
  let server: TestAuthServer;
  let adminToken: string;
  const clock = { now: Date.now() };

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now });
    await addAdminClient(server);
    adminToken = await machineToken(server, 'admin:users:write');
  });
  afterAll(() => server.close());

  /** authctl on the server's own database and secrets, as an operator runs it beside the server. */
  async function authctl(argv: string[], stdin = '') {
    let stdout = '';
    let stderr = '';
    const env = { NODE_ENV: 'test', AUTH_ISSUER: server.issuer, AUTH_DATABASE_URL: server.config.databaseUrl, AUTH_DATA_DIR: server.config.dataDir, AUTH_DEV_SEED: 'false', LOG_LEVEL: 'silent' };
    const code = await runCli(argv, { stdin, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, clock: () => clock.now });
    return { code, stdout, stderr };
  }

  const idOf = async (user: TestUser) => (await server.app.services.accounts.findByUsername(user.username))!.id;

  /** `user` signs in in a new browser (on a TOTP step of its own) and the client exchanges the code. */
  async function signedIn(user: TestUser, jar = new CookieJar()) {
    clock.now += 31 * SEC;
    const done = await signIn(server, jar, user, authorizeUrl(server), clock.now);
    expect(done.status).toBe(302);
    const tokens = await exchange(server, codeFrom(done.location));
    expect(tokens.status).toBe(200);
    const body = tokens.body as { access_token: string; refresh_token: string };
    // Signed in: the next authorize is answered with a code, without a login page.
    const sso = await request(jar, authorizeUrl(server));
    expect(sso.status).toBe(302);
    expect(codeFrom(sso.location)).toEqual(expect.any(String));
    return { jar, ...body, grantId: decodeJwt(body.access_token).grant_id as string };
  }

  /** The browser must sign in again, and the tokens it got are dead, on the server and on the feed. */
  async function expectLockedOut(browser: Awaited<ReturnType<typeof signedIn>>) {
    const again = await request(browser.jar, authorizeUrl(server));
    expect(again.status).toBe(200);
    expect(again.text).toContain('name="uid"');
    expect(again.text).toContain('name="password"');
    const refreshed = await refresh(server, browser.refresh_token);
    expect(refreshed.status).toBe(400);
    expect(refreshed.body).toMatchObject({ error: 'invalid_grant' });
    expect((await introspect(server, browser.access_token)).body).toEqual({ active: false });
    clock.now += FEED_SETTLE_MS + SEC;
    const events = await server.app.services.revocations.since(0, 10_000);
    expect(events.filter((e) => e.type === 'session-revoked' && e.grant_id === browser.grantId)).toHaveLength(1);
    return events;
  }

  async function expectStillSignedIn(browser: Awaited<ReturnType<typeof signedIn>>) {
    const sso = await request(browser.jar, authorizeUrl(server));
    expect(sso.status).toBe(302);
    expect(codeFrom(sso.location)).toEqual(expect.any(String));
    expect((await refresh(server, browser.refresh_token)).status).toBe(200);
  }

  it('authctl user disable ends the session, and user enable does not bring it back', async () => {
    const user = await server.createUser();
    const browser = await signedIn(user);
    expect(await authctl(['user', 'disable', user.username])).toEqual({
      code: 0,
      stdout: `disabled user ${user.username}: sign-in refused; 1 session and 1 grant ended, access tokens revoked\n`,
      stderr: '',
    });
    expect(await authctl(['user', 'enable', user.username])).toEqual({
      code: 0,
      stdout: `enabled user ${user.username}: they may sign in again (no earlier session comes back)\n`,
      stderr: '',
    });
    const events = await expectLockedOut(browser);
    expect(events).toContainEqual(expect.objectContaining({ type: 'account-disabled', sub: await idOf(user) }));
    // Enabled: a new sign-in works.
    await signedIn(user);
  });

  it('a sign-in under way when the account is disabled gets no session, and enable brings none', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const page = await request(jar, authorizeUrl(server));
    const uid = uidOf(page.text);
    expect((await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) })).status).toBe(200);
    expect((await authctl(['user', 'disable', user.username])).code).toBe(0);
    clock.now += 31 * SEC;
    const code = await server.app.services.totp.generate(user.totpSecret, clock.now);
    const refused = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('This account is disabled. Contact your administrator.');
    expect((await authctl(['user', 'enable', user.username])).code).toBe(0);
    const again = await request(jar, authorizeUrl(server));
    expect(again.status).toBe(200);
    expect(again.text).toContain('name="password"');
  });

  it('the admin API\'s disable ends the session, and enable does not bring it back', async () => {
    const user = await server.createUser();
    const browser = await signedIn(user);
    const id = await idOf(user);
    expect((await call(server, 'POST', `/users/${id}/disable`, { token: adminToken })).status).toBe(200);
    expect((await call(server, 'POST', `/users/${id}/enable`, { token: adminToken })).body).toMatchObject({ disabled: false });
    const events = await expectLockedOut(browser);
    expect(events).toContainEqual(expect.objectContaining({ type: 'account-disabled', sub: id }));
  });

  it('authctl user passwd ends every session of the user', async () => {
    const user = await server.createUser();
    const laptop = await signedIn(user);
    const phone = await signedIn(user);
    expect(await authctl(['user', 'passwd', user.username, '--password-stdin'], 'a brand new passphrase\n')).toEqual({
      code: 0,
      stdout: `set a new password for ${user.username}; lockouts cleared; 2 sessions and 2 grants ended\n`,
      stderr: '',
    });
    await expectLockedOut(laptop);
    await expectLockedOut(phone);
  });

  it('the admin API\'s new password ends the session', async () => {
    const user = await server.createUser();
    const browser = await signedIn(user);
    const set = await call(server, 'POST', `/users/${await idOf(user)}/password`, { token: adminToken, body: { password: 'a brand new passphrase' } });
    expect(set.status).toBe(204);
    await expectLockedOut(browser);
  });

  it('authctl user reset-mfa ends the session', async () => {
    const user = await server.createUser();
    const browser = await signedIn(user);
    expect(await authctl(['user', 'reset-mfa', user.username])).toEqual({
      code: 0,
      stdout: `reset the second factors of ${user.username}: removed TOTP, 0 devices, 0 passkeys, 0 recovery codes; 1 session and 1 grant ended; they enrol again at the next sign-in\n`,
      stderr: '',
    });
    await expectLockedOut(browser);
  });

  it('the admin API\'s second-factor reset ends the session', async () => {
    const user = await server.createUser();
    const browser = await signedIn(user);
    const reset = await call(server, 'POST', `/users/${await idOf(user)}/second-factors/reset`, { token: adminToken });
    expect(reset.status).toBe(200);
    await expectLockedOut(browser);
  });

  it('authctl user remove ends the session and revokes the subject', async () => {
    const user = await server.createUser();
    const browser = await signedIn(user);
    const id = await idOf(user);
    expect(await authctl(['user', 'remove', user.username])).toEqual({
      code: 0,
      stdout: `removed user ${user.username}: 1 session and 1 grant ended, access tokens revoked\n`,
      stderr: '',
    });
    const events = await expectLockedOut(browser);
    expect(events).toContainEqual(expect.objectContaining({ type: 'account-disabled', sub: id }));
    expect(await authctl(['user', 'remove', user.username])).toEqual({ code: 1, stdout: '', stderr: `authctl: error: unknown user "${user.username}"\n` });
  });

  it('the admin API\'s DELETE removes the user and ends the session', async () => {
    const user = await server.createUser();
    const browser = await signedIn(user);
    const id = await idOf(user);
    const removed = await call(server, 'DELETE', `/users/${id}`, { token: adminToken });
    expect(removed.status).toBe(204);
    const events = await expectLockedOut(browser);
    expect(events).toContainEqual(expect.objectContaining({ type: 'account-disabled', sub: id }));
    expect((await call(server, 'DELETE', `/users/${id}`, { token: adminToken })).status).toBe(404);
  });

  it('a password change on the account page ends the other sessions and keeps this one', async () => {
    const user = await server.createUser();
    const here = await signedIn(user);
    const there = await signedIn(user);
    const fresh = 'a brand new passphrase';
    const changed = await request(here.jar, `${server.issuer}/account/password`, {
      method: 'POST',
      headers: { ...form({}).headers, origin: server.issuer },
      body: form({ current_password: user.password, new_password: fresh, new_password_confirm: fresh }).body,
    });
    expect(changed.status).toBe(303);
    await expectLockedOut(there);
    await expectStillSignedIn(here);
  });

  it('a TOTP re-enrolment on the account page ends the other sessions and keeps this one', async () => {
    const user = await server.createUser();
    const here = await signedIn(user);
    const there = await signedIn(user);
    const post = (path: string, fields: Record<string, unknown>) =>
      request(here.jar, `${server.issuer}${path}`, { method: 'POST', headers: { ...jsonBody(fields).headers, origin: server.issuer }, body: jsonBody(fields).body });
    clock.now += 31 * SEC;
    const started = await post('/account/totp', { code: await server.app.services.totp.generate(user.totpSecret, clock.now) });
    expect(started.status).toBe(200);
    const { enrollment, secret } = started.json() as { enrollment: string; secret: string };
    const confirmed = await post('/account/totp/confirm', { enrollment, code: await server.app.services.totp.generate(secret, clock.now) });
    expect(confirmed.status).toBe(200);
    // The test user has no unused recovery code left, so the re-enrolment issues ten new ones.
    const answer = confirmed.json() as { recovery_codes: string[] };
    expect(answer).toEqual({ totp_enrolled: true, sessions_ended: 1, grants_ended: 1, recovery_codes: expect.any(Array) });
    expect(answer.recovery_codes).toHaveLength(10);
    await expectLockedOut(there);
    await expectStillSignedIn(here);
  });
});
