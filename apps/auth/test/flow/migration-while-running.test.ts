/**
 * A migration that adds columns while the server runs on PostgreSQL (a rolling deploy): the hot
 * queries are named prepared statements (packages/db pg-named-statements.ts), and PostgreSQL
 * refuses a prepared `SELECT *` whose columns changed. No request may fail for it: the connection
 * prepares the statement again and runs it again.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, basic, codeFrom, CookieJar, exchange, refresh, request, signIn, startServer, type TestAuthServer } from '../support/flow.ts';

describe('a migration while the authorization server runs on PostgreSQL', () => {
  let server: TestAuthServer;

  beforeAll(async () => {
    server = await startServer({ engine: 'postgres' });
  });
  afterAll(() => server.close());

  const clientCredentials = () =>
    fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(server.introspectionClient.clientId, server.introspectionClient.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });

  it('answers every token request across ADD COLUMN on the tables its prepared statements read', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    expect((await signIn(server, jar, user, authorizeUrl(server))).status).toBe(302);
    const code = codeFrom((await request(jar, authorizeUrl(server, { scope: 'openid profile' }))).location);
    const tokens = await exchange(server, code);
    expect(tokens.status).toBe(200);
    const first = await refresh(server, String(tokens.body.refresh_token));
    expect(first.status).toBe(200);
    expect((await clientCredentials()).status).toBe(200);

    // The refresh reads `select c.*, …` and client_credentials `select * from "clients" …`, both prepared now.
    const db = server.database.db;
    await sql`alter table clients add column migration_note text`.execute(db);
    await sql`alter table accounts add column migration_note text`.execute(db);

    const second = await refresh(server, String(first.body.refresh_token));
    expect(second.status).toBe(200);
    expect(typeof second.body.access_token).toBe('string');
    const credentials = await clientCredentials();
    expect(credentials.status).toBe(200);
    expect(((await credentials.json()) as { token_type?: string }).token_type).toBe('Bearer');
    expect((await refresh(server, String(second.body.refresh_token))).status).toBe(200);
  });
});
