/**
 * A PostgreSQL outage while the server runs (a TCP relay cut like a restart): requests that need
 * the database get a clean 503 with Retry-After (JSON or a page, never a 500 or a hang), the
 * process stays up, and everything works again once the database is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, basic, CookieJar, exchange, codeFrom, request, signIn, startServer, type TestAuthServer, type TestUser } from '../support/flow.ts';

describe('a database outage at the authorization server', () => {
  let server: TestAuthServer;
  let user: TestUser;

  beforeAll(async () => {
    server = await startServer({ outage: true });
    user = await server.createUser();
  });
  afterAll(() => server.close());

  it('answers 503 while PostgreSQL is down and recovers by itself', async () => {
    const jar = new CookieJar();
    expect((await signIn(server, jar, user, authorizeUrl(server))).status).toBe(302);
    const pending = new CookieJar();
    const loginPage = await request(pending, authorizeUrl(server));
    expect(loginPage.status).toBe(200);
    const uid = /name="uid" value="([^"]+)"/.exec(loginPage.text)![1]!;
    await server.outage!.down();

    const page = await request(new CookieJar(), authorizeUrl(server));
    expect(page.status).toBe(503);
    expect(page.headers.get('retry-after')).toBe('5');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('The service cannot reach its database right now. Try again in a moment.');

    const token = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(server.testClient.clientId, server.testClient.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'whatever-token-value' }),
    });
    expect(token.status).toBe(503);
    expect(token.headers.get('retry-after')).toBe('5');
    expect(await token.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'The service cannot reach its database right now. Try again in a moment.',
    });

    const login = await request(pending, `${server.issuer}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ uid, username: user.username, password: user.password }),
    });
    expect(login.status).toBe(503);
    expect(JSON.parse(login.text)).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'The service cannot reach its database right now. Try again in a moment.',
    });

    // Discovery and the JWKS need no database.
    expect((await fetch(`${server.issuer}/.well-known/openid-configuration`)).status).toBe(200);

    await server.outage!.up();
    const again = await request(jar, authorizeUrl(server));
    expect(again.status).toBe(302);
    expect((await exchange(server, codeFrom(again.location))).status).toBe(200);
  });
});
