/**
 * The admin API's user changes over HTTP (admin/http/users-routes.ts through the user service):
 * every endpoint refuses a missing token (401), a wrong scope (403) and an unknown id (404);
 * each change does what it says at the login, token, introspection and refresh endpoints, and
 * is audited with the token's actor. Time moves only by the injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { verifyPassword } from '../../src/accounts/password.ts';
import { captureLogger } from '../support/push.ts';
import { APP_TWO, authorizeUrl, codeFrom, CookieJar, decodeJwt, exchange, form, introspect, refresh, request, signIn, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';
import { addAdminClient, call, enrolSecondFactors, machineToken, problemOf, userTokens } from './admin-support.ts';

const SEC = 1000;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe.each(TEST_ENGINES)('changing users over the admin API on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  const log = captureLogger();
  let reader: string;
  let writer: string;
  let nextIp = 1;

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, logger: log.logger, env: { TRUST_PROXY: 'true' } });
    await addAdminClient(server);
    reader = await machineToken(server, 'admin:users:read');
    writer = await machineToken(server, 'admin:users:write');
  });
  afterAll(() => server.close());

  const browser = () => new CookieJar({ 'x-forwarded-for': `198.51.100.${nextIp++}` });
  const idOf = async (username: string) => (await server.app.services.accounts.findByUsername(username))!.id;
  const machine = { actor_kind: 'client', actor: 'admin-machine' };
  async function passwordStep(jar: CookieJar, username: string, password: string) {
    const page = await request(jar, authorizeUrl(server));
    expect(page.status).toBe(200);
    return request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid: uidOf(page.text), username, password }) });
  }
  /** A full sign-in in `jar` (the next TOTP step each time) and a code exchange. */
  async function tokensIn(jar: CookieJar, user: TestUser) {
    clock.now += 30 * SEC;
    const done = await signIn(server, jar, user, authorizeUrl(server), clock.now);
    expect(done.status).toBe(302);
    const tokens = await exchange(server, codeFrom(done.location));
    expect(tokens.status).toBe(200);
    return tokens.body as { access_token: string; refresh_token: string };
  }

  describe('every endpoint: 401 without a token, 403 with a wrong scope, 404 for an unknown id', () => {
    const routes: [method: string, path: string, scope: 'read' | 'write', body?: unknown][] = [
      ['GET', '/users/{id}', 'read'],
      ['PATCH', '/users/{id}', 'write', { name: 'X' }],
      ['POST', '/users/{id}/disable', 'write'],
      ['POST', '/users/{id}/enable', 'write'],
      ['POST', '/users/{id}/unlock', 'write'],
      ['POST', '/users/{id}/password', 'write', { password: 'a long enough passphrase' }],
      ['POST', '/users/{id}/password-reset', 'write'],
      ['POST', '/users/{id}/second-factors/reset', 'write'],
      ['GET', '/users/{id}/sessions', 'read'],
      ['POST', '/users/{id}/signout-all', 'write'],
      ['GET', '/users/{id}/grants', 'read'],
      ['DELETE', '/users/{id}/grants/some-grant', 'write'],
    ];
    it.each(routes)('%s %s', async (method, template, scope, body) => {
      const user = await server.createUser();
      const path = template.replace('{id}', await idOf(user.username));
      const none = await call(server, method, path, { body });
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject(problemOf(401, 'invalid_token', path));
      const wrong = await call(server, method, path, { token: scope === 'read' ? writer : reader, body });
      expect(wrong.status).toBe(403);
      expect(wrong.body).toMatchObject(problemOf(403, 'insufficient_scope', path));
      expect(wrong.headers.get('www-authenticate')).toContain(`scope="admin:users:${scope}"`);
      const unknownPath = template.replace('{id}', UNKNOWN);
      const unknown = await call(server, method, unknownPath, { token: scope === 'read' ? reader : writer, body });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject(problemOf(404, 'user_not_found', unknownPath));
    });

    it('POST /users: 401 and 403 too', async () => {
      const body = { username: 'never', email: 'never@example.com', name: 'Never' };
      expect((await call(server, 'POST', '/users', { body })).status).toBe(401);
      expect((await call(server, 'POST', '/users', { token: reader, body })).status).toBe(403);
      expect(await server.app.services.accounts.findByUsername('never')).toBeUndefined();
    });
  });

  it('create: 201 with Location and the user, audited with the machine actor; the password works', async () => {
    const answer = await call(server, 'POST', '/users', {
      token: writer,
      body: { username: 'New.User', email: 'new.user@example.com', name: 'New User', groups: ['editors', 'editors', 'viewers'], password: 'a long enough passphrase' },
    });
    expect(answer.status).toBe(201);
    const id = await idOf('new.user');
    expect(answer.headers.get('location')).toBe(`/admin/v1/users/${id}`);
    expect(answer.body).toMatchObject({
      id,
      username: 'new.user',
      email: 'new.user@example.com',
      name: 'New User',
      groups: ['editors', 'viewers'],
      disabled: false,
      second_factors: { totp: false, devices: 0, passkeys: 0, recovery_codes_left: 0 },
    });
    expect(log.audits('admin.user.created').at(-1)).toMatchObject({ ...machine, account_id: id, password_set: true });
    expect(JSON.stringify(log.lines)).not.toContain('a long enough passphrase');
    expect((await passwordStep(browser(), 'new.user', 'a long enough passphrase')).status).toBe(200);
  });

  it('create without a password: the account exists but no password signs it in', async () => {
    const answer = await call(server, 'POST', '/users', { token: writer, body: { username: 'nopass', email: 'nopass@example.com', name: 'No Pass' } });
    expect(answer.status).toBe(201);
    expect(answer.body.groups).toEqual([]);
    expect(log.audits('admin.user.created').at(-1)).toMatchObject({ ...machine, password_set: false });
    const account = (await server.app.services.accounts.findByUsername('nopass'))!;
    expect(await verifyPassword(account.passwordHash, '')).toBe(false);
  });

  it('create: bad input is 400 validation_failed naming the field, a taken username 409, a refused password 422', async () => {
    const base = { username: 'fresh', email: 'fresh@example.com', name: 'Fresh' };
    const cases: [body: unknown, status: number, code: string, errors?: unknown][] = [
      [{ ...base, email: 'not-an-email' }, 400, 'validation_failed', [{ field: 'email', message: 'email must be a valid email address' }]],
      [{ ...base, username: 'has space' }, 400, 'validation_failed', [{ field: 'username', message: 'username must be 1-64 characters of letters, digits, ".", "_", "@" or "-"' }]],
      [{ ...base, groups: ['a,b'] }, 400, 'validation_failed', [{ field: 'groups', message: 'each group must be 1-64 characters without spaces or commas' }]],
      [{ ...base, admin: true }, 400, 'validation_failed', [{ field: 'admin', message: 'is not a known field' }]],
      [{ email: 'x@example.com', name: 'X' }, 400, 'validation_failed', [{ field: 'username', message: expect.any(String) }]],
      [{ ...base, username: 'new.user' }, 409, 'duplicate_username'],
      [{ ...base, password: 'short' }, 422, 'password_too_short'],
      [{ ...base, password: 'Password1234' }, 422, 'password_common'],
      [{ ...base, password: '' }, 422, 'password_empty'],
    ];
    for (const [body, status, code, errors] of cases) {
      const answer = await call(server, 'POST', '/users', { token: writer, body });
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body).toMatchObject(problemOf(status, code, '/users'));
      if (errors) expect(answer.body.errors).toEqual(errors);
    }
    expect(await server.app.services.accounts.findByUsername('fresh')).toBeUndefined();
    const malformed = await call(server, 'POST', '/users', { token: writer, rawBody: '{"username":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('malformed_body');
    const form415 = await call(server, 'POST', '/users', { token: writer, rawBody: 'username=x', contentType: 'application/x-www-form-urlencoded' });
    expect(form415.status).toBe(415);
    expect(form415.body.code).toBe('unsupported_media_type');
    const huge = await call(server, 'POST', '/users', { token: writer, body: { ...base, name: 'x'.repeat(70_000) } });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe('payload_too_large');
  });

  it('update: email, name and groups change; the audit names the fields only; bad input is refused', async () => {
    const user = await server.createUser({ groups: ['viewers'] });
    const id = await idOf(user.username);
    const answer = await call(server, 'PATCH', `/users/${id}`, { token: writer, body: { email: 'Changed@Example.com', groups: ['editors'] } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id, email: 'Changed@Example.com', groups: ['editors'], name: `Test ${user.username}` });
    expect(log.audits('admin.user.updated').at(-1)).toEqual(expect.objectContaining({ ...machine, account_id: id, fields: 'email,groups' }));
    const empty = await call(server, 'PATCH', `/users/${id}`, { token: writer, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual([{ field: '(body)', message: 'name at least one of email, name, groups' }]);
    const badName = await call(server, 'PATCH', `/users/${id}`, { token: writer, body: { name: '' } });
    expect(badName.status).toBe(400);
    expect(badName.body.errors).toEqual([{ field: 'name', message: 'name must not be empty' }]);
    const username = await call(server, 'PATCH', `/users/${id}`, { token: writer, body: { username: 'renamed' } });
    expect(username.status).toBe(400);
    expect(username.body.errors).toContainEqual({ field: 'username', message: 'is not a known field' });
  });

  it('disable: password login refused and the user\'s access tokens inactive at introspection; enable restores sign-in', async () => {
    const user = await server.createUser();
    const id = await idOf(user.username);
    const tokens = await tokensIn(browser(), user);
    expect((await introspect(server, tokens.access_token)).body.active).toBe(true);
    const disabled = await call(server, 'POST', `/users/${id}/disable`, { token: writer });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ id, disabled: true, disabled_at: new Date(clock.now).toISOString() });
    expect((await introspect(server, tokens.access_token)).body).toEqual({ active: false });
    expect((await refresh(server, tokens.refresh_token)).body).toMatchObject({ error: 'invalid_grant' });
    const refused = await passwordStep(browser(), user.username, user.password);
    expect(refused.status).toBe(403);
    expect(log.audits('admin.user.disabled').at(-1)).toMatchObject({ ...machine, account_id: id });
    const enabled = await call(server, 'POST', `/users/${id}/enable`, { token: writer });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ disabled: false, disabled_at: null });
    expect((await passwordStep(browser(), user.username, user.password)).status).toBe(200);
    expect(log.audits('admin.user.enabled').at(-1)).toMatchObject({ ...machine, account_id: id });
  });

  it('unlock ends a lockout', async () => {
    const user = await server.createUser();
    const id = await idOf(user.username);
    const jar = browser();
    for (let i = 0; i < 5; i++) expect((await passwordStep(jar, user.username, `wrong-${i}`)).status).toBe(401);
    expect((await passwordStep(jar, user.username, user.password)).status).toBe(429);
    const unlocked = await call(server, 'POST', `/users/${id}/unlock`, { token: writer });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body).toEqual({ cleared: 5 });
    expect((await passwordStep(jar, user.username, user.password)).status).toBe(200);
    expect(log.audits('admin.user.unlocked').at(-1)).toMatchObject({ ...machine, account_id: id, cleared: 5 });
  });

  it('password: 204, the new one works at once; refusals are 422 with the rule\'s code, a missing field 400', async () => {
    const user = await server.createUser();
    const id = await idOf(user.username);
    const set = await call(server, 'POST', `/users/${id}/password`, { token: writer, body: { password: 'the operator chose this' } });
    expect(set.status).toBe(204);
    expect((await passwordStep(browser(), user.username, user.password)).status).toBe(401);
    expect((await passwordStep(browser(), user.username, 'the operator chose this')).status).toBe(200);
    expect(log.audits('admin.user.password_set').at(-1)).toMatchObject({ ...machine, account_id: id });
    for (const [password, code] of [['eleven-char', 'password_too_short'], ['LEAVEMEALONE', 'password_common'], ['x'.repeat(129), 'password_too_long']] as const) {
      const refused = await call(server, 'POST', `/users/${id}/password`, { token: writer, body: { password } });
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject(problemOf(422, code, `/users/${id}/password`));
    }
    const missing = await call(server, 'POST', `/users/${id}/password`, { token: writer, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ field: 'password', message: expect.any(String) }]);
    expect(JSON.stringify(log.lines)).not.toContain('the operator chose this');
  });

  it('password-reset link: 201 with a one-time link that sets a new password; a new link replaces it; a disabled user gets 409', async () => {
    const user = await server.createUser();
    const id = await idOf(user.username);
    const path = `/users/${id}/password-reset`;
    const first = await call(server, 'POST', path, { token: writer });
    expect(first.status).toBe(201);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.body).toEqual({ url: expect.stringMatching(new RegExp(`^${server.issuer}/account/password-reset/[A-Za-z0-9_-]{43}$`)), expires_at: new Date(clock.now + 3_600_000).toISOString() });
    expect(log.audits('admin.user.reset_link_issued').at(-1)).toEqual(expect.objectContaining({ ...machine, account_id: id, expires_at: first.body.expires_at }));

    // A second link replaces the first: the first page is gone, the second sets the password.
    const second = await call(server, 'POST', path, { token: writer });
    expect(second.status).toBe(201);
    const firstUrl = first.body.url as string;
    const secondUrl = second.body.url as string;
    expect((await request(browser(), firstUrl)).status).toBe(410);
    const set = await request(browser(), secondUrl, {
      method: 'POST',
      headers: { ...form({}).headers, origin: server.issuer },
      // The user has TOTP: the link's page asks for a code before the new password is set (spec §10.12).
      body: form({ new_password: 'a reset passphrase here', new_password_confirm: 'a reset passphrase here', code: await server.app.services.totp.generate(user.totpSecret, clock.now) }).body,
    });
    expect(set.status).toBe(200);
    expect((await passwordStep(browser(), user.username, user.password)).status).toBe(401);
    expect((await passwordStep(browser(), user.username, 'a reset passphrase here')).status).toBe(200);
    // The link is in the answer only: never in a log line.
    expect(JSON.stringify(log.lines)).not.toContain(new URL(secondUrl).pathname.split('/').at(-1));

    expect((await call(server, 'POST', `/users/${id}/disable`, { token: writer })).status).toBe(200);
    const disabled = await call(server, 'POST', path, { token: writer });
    expect(disabled.status).toBe(409);
    expect(disabled.body).toMatchObject(problemOf(409, 'user_disabled', path));
  });

  it('second-factor reset removes TOTP, devices, passkeys and recovery codes', async () => {
    const user = await server.createUser();
    const id = await idOf(user.username);
    await enrolSecondFactors(server, id);
    const before = await call(server, 'GET', `/users/${id}`, { token: reader });
    expect(before.body.second_factors).toEqual({ totp: true, devices: 1, passkeys: 1, recovery_codes_left: 10 });
    const reset = await call(server, 'POST', `/users/${id}/second-factors/reset`, { token: writer });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ removed: { totp: true, devices: 1, passkeys: 1, recovery_codes: 10 } });
    const after = await call(server, 'GET', `/users/${id}`, { token: reader });
    expect(after.body.second_factors).toEqual({ totp: false, devices: 0, passkeys: 0, recovery_codes_left: 0 });
    expect(await server.app.services.accounts.getTotpSecret(id)).toBeUndefined();
    expect(log.audits('admin.user.second_factors_reset').at(-1)).toMatchObject({ ...machine, account_id: id, totp: true, devices: 1, passkeys: 1, recovery_codes_removed: 10 });
    const again = await call(server, 'POST', `/users/${id}/second-factors/reset`, { token: writer });
    expect(again.body).toEqual({ removed: { totp: false, devices: 0, passkeys: 0, recovery_codes: 0 } });
  });

  it('sessions and grants: listed (sessions without their ids), one grant revoked, then sign out everywhere ends SSO and refresh', async () => {
    const user = await server.createUser();
    const id = await idOf(user.username);
    const laptop = browser();
    const phone = browser();
    const first = await tokensIn(laptop, user);
    const second = await tokensIn(phone, user);
    const [grantA, grantB] = [first, second].map((t) => decodeJwt(t.access_token).grant_id as string);

    const sessions = await call(server, 'GET', `/users/${id}/sessions`, { token: reader });
    expect(sessions.status).toBe(200);
    const items = sessions.body.items as Record<string, unknown>[];
    expect(items.map((s) => s.clients)).toEqual([[{ client_id: 'test-app', grant_id: grantB }], [{ client_id: 'test-app', grant_id: grantA }]]);
    expect(Object.keys(items[0]!).sort()).toEqual(['clients', 'expires_at', 'last_used_at', 'signed_in_at']);

    const grants = await call(server, 'GET', `/users/${id}/grants`, { token: reader });
    expect(grants.status).toBe(200);
    // oidc-provider stamps a grant's iat with the system clock (whole seconds): compare as a set.
    expect((grants.body.items as Record<string, unknown>[]).map((g) => g.id).sort()).toEqual([grantA, grantB].sort());
    expect((grants.body.items as Record<string, unknown>[])[0]).toMatchObject({
      client_id: 'test-app',
      openid_scopes: expect.arrayContaining(['openid', 'profile', 'email']),
      resources: [{ resource: server.audience, scopes: ['openid', 'profile', 'email', 'movies:read'] }],
    });

    const revoked = await call(server, 'DELETE', `/users/${id}/grants/${grantA}`, { token: writer });
    expect(revoked.status).toBe(204);
    expect((await refresh(server, first.refresh_token)).body).toMatchObject({ error: 'invalid_grant' });
    expect((await introspect(server, first.access_token)).body).toEqual({ active: false });
    expect((await introspect(server, second.access_token)).body.active).toBe(true);
    expect(log.audits('admin.user.grant_revoked').at(-1)).toMatchObject({ ...machine, account_id: id, grant_id: grantA });
    const twice = await call(server, 'DELETE', `/users/${id}/grants/${grantA}`, { token: writer });
    expect(twice.status).toBe(404);
    expect(twice.body).toMatchObject(problemOf(404, 'grant_not_found', `/users/${id}/grants/${grantA}`));
    const other = await server.createUser();
    const foreign = await call(server, 'DELETE', `/users/${await idOf(other.username)}/grants/${grantB}`, { token: writer });
    expect(foreign.status).toBe(404);
    expect((await introspect(server, second.access_token)).body.active).toBe(true);

    const out = await call(server, 'POST', `/users/${id}/signout-all`, { token: writer });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ sessions: 2, grants: 1 });
    expect((await call(server, 'GET', `/users/${id}/sessions`, { token: reader })).body).toEqual({ items: [] });
    expect((await call(server, 'GET', `/users/${id}/grants`, { token: reader })).body).toEqual({ items: [] });
    const again = await request(phone, authorizeUrl(server));
    expect(again.status).toBe(200);
    expect(again.text).toContain('name="uid"');
    expect((await refresh(server, second.refresh_token)).body).toMatchObject({ error: 'invalid_grant' });
    expect((await introspect(server, second.access_token)).body).toEqual({ active: false });
    expect(log.audits('admin.user.signed_out').at(-1)).toMatchObject({ ...machine, account_id: id, sessions: 2, grants: 1 });
  });

  it('an admin user\'s token works and is audited as the account; a non-admin cannot get the scope', async () => {
    await server.app.services.scopePolicies.setClientScopes(APP_TWO.clientId, ['admin:users:read', 'admin:users:write']);
    const admin = await server.createUser({ groups: ['admins'] });
    clock.now += 30 * SEC;
    const { body } = await userTokens(server, admin, 'openid admin:users:write', APP_TWO, clock.now);
    expect(body.scope).toBe('openid admin:users:write');
    const target = await server.createUser();
    const id = await idOf(target.username);
    const answer = await call(server, 'POST', `/users/${id}/disable`, { token: String(body.access_token) });
    expect(answer.status).toBe(200);
    expect(log.audits('admin.user.disabled').at(-1)).toMatchObject({ actor_kind: 'account', actor: await idOf(admin.username), account_id: id });

    const plain = await server.createUser({ groups: ['editors'] });
    clock.now += 30 * SEC;
    const refused = await userTokens(server, plain, 'openid admin:users:write', APP_TWO, clock.now);
    expect(refused.body.scope).toBe('openid');
    const denied = await call(server, 'POST', `/users/${id}/enable`, { token: String(refused.body.access_token) });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('insufficient_scope');
  });
});
