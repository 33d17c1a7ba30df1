/**
 * The statements a token request runs: the client with the scope policies in one read
 * (with a refresh request's token, its grant, session and account too), and the rotation's two
 * writes in one commit; and what was read ahead never outlives its request: a revocation, a disabled
 * account, a policy change or a removed client acts at the very next request.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordStatements as recordDatabaseStatements, TEST_ENGINES } from '@gatehouse/db/testing';
import { authorizeUrl, basic, codeFrom, CookieJar, exchange, refresh, request, signIn, startServer, type TestAuthServer, type TestUser } from '../support/flow.ts';

/** Records the SQL text of every statement the server's database runs (its transactions included). */
const recordStatements = (server: TestAuthServer) => recordDatabaseStatements(server.database.db as never);

/**
 * One word per statement: what it does to which table. Audit rows are batched apart and left out,
 * with the deferred commit's PRAGMA statements around each batch on SQLite.
 */
function summary(statements: readonly string[]): string[] {
  const audit = (i: number) => /audit_events/.test(statements[i] ?? '');
  return statements
    .filter((sql, i) => !audit(i) && !(/^PRAGMA synchronous = NORMAL$/i.test(sql) && audit(i + 1)) && !(/^PRAGMA synchronous = FULL$/i.test(sql) && audit(i - 1)))
    .map((sql) => {
      const s = sql.toLowerCase();
      if (s.startsWith('with')) return 'consume+insert oidc_payloads';
      if (s.startsWith('update "oidc_payloads"')) return 'consume oidc_payloads';
      if (s.startsWith('insert into "oidc_payloads"')) return 'insert oidc_payloads';
      if (s.includes('from clients c') && s.includes('from oidc_payloads r')) return 'select client+policies+refresh token+grant+session+account';
      if (s.includes('from oidc_payloads r')) return 'select refresh token+grant+session+account';
      if (s.includes('from "clients"') && s.includes('scope_policies')) return 'select client+policies';
      const table = /from "?([a-z_]+)"?/.exec(s)?.[1] ?? s;
      return `${s.split(' ')[0]} ${table}`;
    });
}

describe.each(TEST_ENGINES)('token requests read ahead, within one request only, on %s', (engine) => {
  let server: TestAuthServer;
  let user: TestUser;
  const jar = new CookieJar();
  let recorder: ReturnType<typeof recordStatements> | undefined;

  beforeAll(async () => {
    server = await startServer({ engine, apiScopes: ['movies:read', 'movies:write'], listenForClientChanges: true });
    user = await server.createUser({ groups: ['staff'] });
    expect((await signIn(server, jar, user, authorizeUrl(server))).status).toBe(302);
  });
  afterAll(() => server.close());
  afterEach(() => recorder?.stop());

  async function tokens(scope = 'openid profile movies:read movies:write'): Promise<Record<string, unknown>> {
    const res = await request(jar, authorizeUrl(server, { scope }));
    expect(res.status).toBe(302);
    const exchanged = await exchange(server, codeFrom(res.location));
    expect(exchanged.status).toBe(200);
    return exchanged.body;
  }

  const clientCredentials = async (scope = 'movies:read') => {
    const c = server.introspectionClient;
    const response = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(c.clientId, c.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('a refresh reads once and commits its rotation once; client_credentials reads once', async () => {
    const issued = await tokens();
    recorder = recordStatements(server);
    const refreshed = await refresh(server, String(issued.refresh_token));
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('openid profile movies:read movies:write');
    expect(summary(recorder.statements)).toEqual([
      // The client row read by the code exchange is reused while the clients and policies are
      // unchanged (a change is heard on PostgreSQL, counted by triggers on SQLite; the exchange's
      // own commit to other tables does not count), so only the token and its relatives are read.
      'select refresh token+grant+session+account',
      // SQLite: the rotation's transaction commits without waiting for the disk on the event loop
      // (the log is synced in libuv's pool before the answer, Database.deferredSync).
      ...(engine === 'postgres'
        ? ['consume+insert oidc_payloads']
        : ['pragma pragma synchronous = normal', 'consume oidc_payloads', 'insert oidc_payloads', 'pragma pragma synchronous = full']),
    ]);
    recorder.statements.length = 0;
    const cc = await clientCredentials();
    expect(cc.status).toBe(200);
    expect(summary(recorder.statements)).toEqual(['select client+policies']);
    // The next one reuses that client row: the token it issued committed nothing to the clients.
    recorder.statements.length = 0;
    expect((await clientCredentials()).status).toBe(200);
    expect(summary(recorder.statements)).toEqual([]);
  });

  it('the rotation is committed before the response: the old refresh token is consumed, the new one stored', async () => {
    const issued = await tokens();
    const old = String(issued.refresh_token);
    const refreshed = await refresh(server, old);
    expect(refreshed.status).toBe(200);
    const rows = await server.database.db.selectFrom('oidc_payloads').select(['id', 'consumed_at']).where('model', '=', 'RefreshToken').execute();
    const consumed = new Map(rows.map((r) => [r.id, r.consumed_at]));
    expect(consumed.get(old)).toEqual(expect.any(Number));
    expect(consumed.get(String(refreshed.body.refresh_token))).toBeNull();
    // Presenting the consumed one again at once: refused, and the grant (so the new one) revoked.
    expect((await refresh(server, old)).body).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
    expect((await refresh(server, String(refreshed.body.refresh_token))).body.error).toBe('invalid_grant');
  });

  it('a revoked refresh token, a disabled account and a policy change act at the very next request', async () => {
    const first = await tokens();
    const second = await tokens();
    expect((await refresh(server, String(first.refresh_token))).status).toBe(200);
    await server.revoke(String(second.refresh_token));
    expect((await refresh(server, String(second.refresh_token))).body.error).toBe('invalid_grant');

    const third = await tokens();
    const next = await refresh(server, String(third.refresh_token));
    expect(next.body.scope).toBe('openid profile movies:read movies:write');
    await server.app.services.scopePolicies.restrict('movies:write', ['editors']);
    const narrowed = await refresh(server, String(next.body.refresh_token));
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scope).toBe('openid profile movies:read');
    await server.app.services.scopePolicies.clear('movies:write');
    const widened = await refresh(server, String(narrowed.body.refresh_token));
    expect(widened.body.scope).toBe('openid profile movies:read movies:write');

    await server.app.services.accounts.setDisabled(user.username, Date.now());
    const refused = await refresh(server, String(widened.body.refresh_token));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
    await server.app.services.accounts.setDisabled(user.username, null);
  });

  it('a client change is read by the very next refresh, with the token in the same statement', async () => {
    const issued = await tokens();
    await server.app.services.scopePolicies.restrict('movies:write', ['editors']);
    recorder = recordStatements(server);
    const refreshed = await refresh(server, String(issued.refresh_token));
    expect(refreshed.body.scope).toBe('openid profile movies:read');
    expect(summary(recorder.statements)[0]).toBe('select client+policies+refresh token+grant+session+account');
    await server.app.services.scopePolicies.clear('movies:write');
  });

  it('a removed client is refused at the very next request', async () => {
    const c = await server.app.services.clients.create({ clientId: `machine-${engine}`, redirectUris: [], grantTypes: ['client_credentials'], clientSecret: 'machine-secret-0123' });
    const ask = () =>
      fetch(`${server.issuer}/oauth2/v1/token`, {
        method: 'POST',
        headers: { authorization: basic(c.clientId, 'machine-secret-0123'), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'movies:read' }),
      });
    expect((await ask()).status).toBe(200);
    await server.app.services.clients.remove(c.clientId);
    const refused = await ask();
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_client');
  });
});
