/**
 * The user service (admin/user-admin.ts) against a running server: unlock ends a lockout, sign
 * out everywhere ends SSO, refresh and the access tokens of every grant, a new password works at
 * once, and every change is an audit line naming the actor. Time moves only by the injected clock.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditor } from '../../src/audit/auditor.ts';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createUserAdmin, type UserAdmin } from '../../src/admin/user-admin.ts';
import { CLI_OPERATOR } from '../../src/audit/actor.ts';
import { FEED_SETTLE_MS } from '../../src/revocation/revocation-store.ts';
import { authorizeUrl, codeFrom, CookieJar, decodeJwt, exchange, form, introspect, refresh, request, signIn, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';

const SEC = 1000;

describe.each(TEST_ENGINES)('user administration over HTTP on %s', (engine) => {
  let server: TestAuthServer;
  let admin: UserAdmin;
  const clock = { now: Date.now() };
  const lines: Record<string, unknown>[] = [];
  let nextIp = 1;

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, env: { TRUST_PROXY: 'true' } });
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    admin = createUserAdmin({ ...server.app.services, audit: createAuditor({ logger: pino({ level: 'info' }, sink) }), clock: () => clock.now, accessTokenTtl: server.config.accessTokenTtl });
  });
  afterAll(() => server.close());

  const audits = (event: string) => lines.filter((l) => l.event === event);
  const browser = () => new CookieJar({ 'x-forwarded-for': `198.51.100.${nextIp++}` });
  const passwordStep = (jar: CookieJar, uid: string, username: string, password: string) =>
    request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username, password }) });
  async function loginPage(jar: CookieJar): Promise<string> {
    const page = await request(jar, authorizeUrl(server));
    expect(page.status).toBe(200);
    return uidOf(page.text);
  }
  /** A full sign-in and a code exchange in `jar`: the token response. */
  async function tokensIn(jar: CookieJar, user: { username: string; password: string; totpSecret: string }) {
    const done = await signIn(server, jar, user, authorizeUrl(server), clock.now);
    expect(done.status).toBe(302);
    const tokens = await exchange(server, codeFrom(done.location));
    expect(tokens.status).toBe(200);
    return tokens.body as { access_token: string; refresh_token: string };
  }

  it('unlock ends a lockout: refused with 429, then the right password passes', async () => {
    const user = await server.createUser();
    const jar = browser();
    const uid = await loginPage(jar);
    for (let i = 0; i < 5; i++) expect((await passwordStep(jar, uid, user.username, `wrong-${i}`)).status).toBe(401);
    const refused = await passwordStep(jar, uid, user.username, user.password);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('30');

    const { account, cleared } = await admin.unlock(CLI_OPERATOR, user.username.toUpperCase());
    expect(cleared).toBe(5);
    expect((await passwordStep(jar, uid, user.username, user.password)).status).toBe(200);
    expect(audits('admin.user.unlocked').at(-1)).toMatchObject({ actor_kind: 'operator', actor: 'cli', account_id: account.id, cleared: 5 });
    await expect(admin.unlock(CLI_OPERATOR, 'nobody')).rejects.toThrow('unknown user "nobody"');
  });

  it('sign out everywhere ends SSO, refresh and the access tokens of every session', async () => {
    const user = await server.createUser();
    const laptop = browser();
    const phone = browser();
    const first = await tokensIn(laptop, user);
    clock.now += 60 * SEC;
    const second = await tokensIn(phone, user);
    const grantIds = [first, second].map((t) => decodeJwt(t.access_token).grant_id as string);
    expect((await introspect(server, first.access_token)).body.active).toBe(true);

    const { sessions } = await admin.listSessions(user.username);
    expect(sessions).toHaveLength(2);
    // Most recently used first; the provider re-saves a session on each use.
    expect(sessions.map((s) => s.clients)).toEqual([
      [{ clientId: 'test-app', grantId: grantIds[1] }],
      [{ clientId: 'test-app', grantId: grantIds[0] }],
    ]);
    expect(sessions[1]!.signedInAt).toBe(Math.floor((clock.now - 60 * SEC) / SEC) * SEC);
    expect(sessions[0]!.lastUsedAt).toBe(clock.now);
    expect(sessions[0]!.expiresAt).toBe(clock.now + server.config.sessionTtl * SEC);

    const { account, ...ended } = await admin.signOutEverywhere(CLI_OPERATOR, user.username);
    expect(ended).toEqual({ sessions: 2, grants: 2 });
    expect((await admin.listSessions(user.username)).sessions).toEqual([]);

    // SSO is over: the old cookie gets the sign-in page, not a code.
    const again = await request(laptop, authorizeUrl(server));
    expect(again.status).toBe(200);
    expect(again.text).toContain('name="uid"');
    expect((await refresh(server, first.refresh_token)).body).toMatchObject({ error: 'invalid_grant' });
    expect((await refresh(server, second.refresh_token)).body).toMatchObject({ error: 'invalid_grant' });
    expect((await introspect(server, first.access_token)).body).toEqual({ active: false });
    expect((await introspect(server, second.access_token)).body).toEqual({ active: false });

    // Resource servers learn it from the feed: one session-revoked event per grant.
    clock.now += FEED_SETTLE_MS + SEC;
    const events = await server.app.services.revocations.since(0, 1000);
    expect(events.filter((e) => e.type === 'session-revoked' && grantIds.includes(e.grant_id)).map((e) => e.type === 'session-revoked' && e.grant_id).sort()).toEqual(
      [...grantIds].sort(),
    );
    expect(audits('admin.user.signed_out').at(-1)).toMatchObject({ actor_kind: 'operator', actor: 'cli', account_id: account.id, sessions: 2, grants: 2 });

    // The user can sign in again (with the next TOTP code: a used one is refused as a replay).
    clock.now += 30 * SEC;
    const fresh = await tokensIn(browser(), user);
    expect((await introspect(server, fresh.access_token)).body.active).toBe(true);
  });

  it('a new password works at once, the old one no longer does, and a common one is refused', async () => {
    const user = await server.createUser();
    await expect(admin.setPassword(CLI_OPERATOR, user.username, 'Password1234')).rejects.toThrow('password is on the list of common or breached passwords; choose another');
    await expect(admin.setPassword(CLI_OPERATOR, user.username, 'short')).rejects.toThrow('password must be at least 12 characters');
    const account = await admin.setPassword(CLI_OPERATOR, user.username, 'a fresh passphrase');
    const jar = browser();
    const uid = await loginPage(jar);
    expect((await passwordStep(jar, uid, user.username, user.password)).status).toBe(401);
    expect((await passwordStep(jar, uid, user.username, 'a fresh passphrase')).status).toBe(200);
    expect(audits('admin.user.password_set').filter((l) => l.account_id === account.id)).toHaveLength(1);
    expect(JSON.stringify(lines)).not.toContain('a fresh passphrase');
  });

  it('disable and enable go through the service and are audited', async () => {
    const user = await server.createUser();
    const account = await admin.disable(CLI_OPERATOR, user.username);
    expect(account.disabledAt).toBe(clock.now);
    const jar = browser();
    expect((await passwordStep(jar, await loginPage(jar), user.username, user.password)).status).toBe(403);
    await admin.enable(CLI_OPERATOR, user.username);
    expect((await passwordStep(jar, await loginPage(jar), user.username, user.password)).status).toBe(200);
    expect([audits('admin.user.disabled').at(-1), audits('admin.user.enabled').at(-1)]).toEqual([
      expect.objectContaining({ actor_kind: 'operator', actor: 'cli', account_id: account.id }),
      expect.objectContaining({ actor_kind: 'operator', actor: 'cli', account_id: account.id }),
    ]);
  });
});
