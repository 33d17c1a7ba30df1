/**
 * The stored audit trail behind a real server: a sign-in through the flow is stored (and no
 * credential with it), an authctl change is stored with its actor, a failed write never fails the
 * request, and old events are purged on the app's maintenance schedule (injected clock).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { runCli } from '../../src/cli/run-cli.ts';
import { createLogger } from '../../src/logging/logger.ts';
import type { AuditQuery } from '../../src/audit/audit-trail.ts';
import { createAuditSink } from '../../src/audit/audit-sink.ts';
import { createAuditor } from '../../src/audit/auditor.ts';
import { createUserAdmin } from '../../src/admin/user-admin.ts';
import { authorizeUrl, codeFrom, CookieJar, exchange, form, request, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';

const HOUR = 3_600_000;

describe.each(TEST_ENGINES)('stored audit trail on %s', (engine) => {
  let server: TestAuthServer;
  let now = Date.now();
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const logger = createLogger({ level: 'warn', destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
    server = await startServer({ engine, clock: () => now, logger, env: { AUTH_AUDIT_RETENTION_DAYS: '1' } });
  });
  afterAll(() => server.close());

  async function stored(query: AuditQuery) {
    await server.app.flushAudit();
    return (await server.app.services.auditTrail.query({ limit: 200, ...query })).items;
  }

  async function passwordStep(jar: CookieJar, user: TestUser) {
    const page = await request(jar, authorizeUrl(server));
    expect(page.status).toBe(200);
    const uid = uidOf(page.text);
    expect((await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) })).status).toBe(200);
    return uid;
  }

  it('a sign-in through the flow is stored in order, with the time of each event and without any credential', async () => {
    const user = await server.createUser({ username: `audit-${engine}` });
    const jar = new CookieJar();
    const page = await request(jar, authorizeUrl(server));
    const uid = uidOf(page.text);
    const wrongPassword = 'not-the-password-4711';
    expect((await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username.toUpperCase(), password: wrongPassword }) })).status).toBe(401);
    expect((await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) })).status).toBe(200);
    const code = await server.app.services.totp.generate(user.totpSecret, now);
    const wrongCode = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    expect((await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code: wrongCode }) })).status).toBe(401);
    const done = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
    expect(done.status).toBe(302);
    const authorizationCode = codeFrom(done.location);
    const tokens = await exchange(server, authorizationCode);
    expect(tokens.status).toBe(200);

    const account = (await server.app.services.accounts.findByUsername(user.username))!;
    const mine = await stored({ username: user.username });
    expect(mine.map((e) => ({ event: e.event, occurredAt: e.occurredAt, accountId: e.accountId, username: e.username, ip: e.ip, fields: e.fields }))).toEqual([
      { event: 'login.mfa.success', occurredAt: now, accountId: account.id, username: null, ip: '127.0.0.1', fields: { method: 'totp' } },
      { event: 'login.mfa.failure', occurredAt: now, accountId: account.id, username: null, ip: '127.0.0.1', fields: { method: 'totp', reason: 'invalid_code' } },
      { event: 'login.password.success', occurredAt: now, accountId: account.id, username: null, ip: '127.0.0.1', fields: {} },
      { event: 'login.password.failure', occurredAt: now, accountId: null, username: user.username, ip: '127.0.0.1', fields: {} },
    ]);
    // Newest first means the reverse of the ids: the request's events kept their order.
    expect(mine.map((e) => e.id)).toEqual([...mine.map((e) => e.id)].sort((a, b) => b - a));
    expect(await stored({ clientId: server.testClient.clientId, event: 'token.' })).toEqual([
      expect.objectContaining({ event: 'token.issued', clientId: 'test-app', accountId: null, fields: { grant_type: 'authorization_code' } }),
    ]);

    const everything = JSON.stringify(await server.database.db.selectFrom('audit_events').selectAll().execute());
    for (const secret of [user.password, wrongPassword, user.totpSecret, code, wrongCode, authorizationCode, tokens.body.access_token, tokens.body.refresh_token, tokens.body.id_token, server.testClient.clientSecret]) {
      expect(secret).toBeTypeOf('string');
      expect(everything).not.toContain(String(secret));
    }
  });

  it('each stored event names the request that caused it (X-Request-Id, as nginx sends it); authctl events name none', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const page = await request(jar, authorizeUrl(server));
    const uid = uidOf(page.text);
    const refused = await request(jar, `${server.issuer}/login`, {
      method: 'POST',
      headers: { ...form({}).headers, 'x-request-id': `nginx-${engine}-1` },
      body: new URLSearchParams({ uid, username: user.username, password: 'not-the-password-0815' }).toString(),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe(`nginx-${engine}-1`);
    const signedIn = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) });
    expect(signedIn.status).toBe(200);
    const generated = signedIn.headers.get('x-request-id');
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    await server.app.flushAudit();
    const env = { AUTH_DATABASE_URL: server.config.databaseUrl, AUTH_DATA_DIR: server.config.dataDir, NODE_ENV: 'test' };
    expect(await runCli(['user', 'unlock', user.username], { stdin: '', stdout: () => undefined, stderr: () => undefined, env, clock: () => now })).toBe(0);
    await server.app.flushAudit();
    const account = (await server.app.services.accounts.findByUsername(user.username))!;
    const mine = await server.database.db.selectFrom('audit_events').select(['event', 'request_id']).where((eb) => eb.or([eb('username', '=', user.username), eb('account_id', '=', account.id)])).orderBy('id').execute();
    expect(mine).toEqual([
      { event: 'login.password.failure', request_id: `nginx-${engine}-1` },
      { event: 'login.password.success', request_id: generated },
      { event: 'admin.user.unlocked', request_id: null },
    ]);
  });

  it('an authctl change is stored with its actor, and the refused sign-in that follows too', async () => {
    const user = await server.createUser();
    const env = { AUTH_DATABASE_URL: server.config.databaseUrl, AUTH_DATA_DIR: server.config.dataDir, NODE_ENV: 'test' };
    const cli = await runCli(['user', 'disable', user.username], { stdin: '', stdout: () => undefined, stderr: () => undefined, env, clock: () => now });
    expect(cli).toBe(0);
    const jar = new CookieJar();
    const page = await request(jar, authorizeUrl(server));
    const refused = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid: uidOf(page.text), username: user.username, password: user.password }) });
    expect(refused.status).toBe(403);
    const account = (await server.app.services.accounts.findByUsername(user.username))!;
    expect((await stored({ username: user.username })).map((e) => ({ event: e.event, actorKind: e.actorKind, actor: e.actor, accountId: e.accountId }))).toEqual([
      { event: 'login.account_disabled', actorKind: null, actor: null, accountId: account.id },
      { event: 'admin.user.disabled', actorKind: 'operator', actor: 'cli', accountId: account.id },
    ]);
  });

  it('a change through the user service is stored with its actor (an acting account here)', async () => {
    const user = await server.createUser();
    const admin = (await server.app.services.accounts.findByUsername((await server.createUser({ groups: ['admins'] })).username))!;
    const silent = createLogger({ level: 'silent' });
    const sink = createAuditSink({ store: server.app.services.auditEvents, clock: () => now, logger: silent });
    const users = createUserAdmin({ ...server.app.services, audit: createAuditor({ logger: silent, sink }), clock: () => now, accessTokenTtl: server.config.accessTokenTtl });
    await users.signOutEverywhere({ kind: 'account', accountId: admin.id }, user.username);
    await sink.flush();
    const account = (await server.app.services.accounts.findByUsername(user.username))!;
    expect(await stored({ username: user.username })).toEqual([
      expect.objectContaining({ event: 'admin.user.signed_out', occurredAt: now, accountId: account.id, actorKind: 'account', actor: admin.id, fields: { sessions: 0, grants: 0 } }),
    ]);
  });

  it('a failed write is one warning; the sign-in goes on, and its events are stored when the table is back', async () => {
    const user = await server.createUser();
    lines.length = 0;
    await sql`alter table audit_events rename to audit_events_away`.execute(server.database.db);
    try {
      const tokens = await server.login({ scope: 'openid', username: user.username });
      expect(tokens.access_token).toBeTypeOf('string');
      await server.app.flushAudit();
    } finally {
      await sql`alter table audit_events_away rename to audit_events`.execute(server.database.db);
    }
    expect(lines.filter((l) => l.event === 'audit.persist_failed').map((l) => [l.level, typeof l.pending, Object.keys(l).sort().join(',')])).toEqual([
      [40, 'number', 'error_code,event,hostname,level,msg,name,pending,pid,time'],
    ]);
    expect(lines.filter((l) => l.event === 'audit.events_dropped')).toEqual([]);
    // Kept (in the spool: the flush could not write them), and written by the next write.
    await server.app.flushAudit();
    const account = (await server.app.services.accounts.findByUsername(user.username))!;
    expect((await stored({ username: user.username })).map((e) => e.event)).toEqual(['login.mfa.success', 'login.password.success']);
    expect((await stored({ clientId: server.testClient.clientId, event: 'token.' })).filter((e) => e.fields.grant_type === 'authorization_code').length).toBeGreaterThanOrEqual(1);
    const jar = new CookieJar();
    await passwordStep(jar, user);
    expect((await stored({ accountId: account.id })).map((e) => e.event)).toEqual(['login.password.success', 'login.mfa.success', 'login.password.success']);
  });

  it('purges events older than AUTH_AUDIT_RETENTION_DAYS on the maintenance schedule', async () => {
    const before = (await stored({})).length;
    expect(before).toBeGreaterThan(5);
    now += 25 * HOUR;
    await server.app.services.auditEvents.append([
      { occurredAt: now - HOUR, event: 'session.logout', accountId: null, username: null, clientId: 'test-app', actorKind: null, actor: null, ip: null, fields: {} },
    ]);
    // The next tick of the maintenance timer (main.ts) runs the due purge; no request is needed.
    await server.app.maintenance.runDue();
    await vi.waitFor(async () => expect((await stored({})).map((e) => e.event)).toEqual(['session.logout']), { timeout: 5_000, interval: 20 });
  });
});
