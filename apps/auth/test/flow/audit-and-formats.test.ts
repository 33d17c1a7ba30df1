import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { authorizeUrl, codeFrom, CookieJar, exchange, introspect, request, signIn, startServer, type TestAuthServer, type TestUser } from '../support/flow.ts';

describe('audit log', () => {
  const lines: string[] = [];
  let server: TestAuthServer;
  let user: TestUser;
  let tokens: Record<string, unknown>;
  let code = '';

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    server = await startServer({ logger: pino({ level: 'debug' }, sink) });
    user = await server.createUser();
    const jar = new CookieJar();
    const page = await request(jar, authorizeUrl(server));
    expect(page.status).toBe(200);
    await request(jar, `${server.issuer}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: user.username, password: 'wrong-password-123' }).toString(),
    });
    const done = await signIn(server, jar, user, authorizeUrl(server));
    code = codeFrom(done.location);
    tokens = (await exchange(server, code)).body;
    await server.revoke(String(tokens.refresh_token));
  });
  afterAll(() => server.close());

  it('records login, failure, second factor, token issue and revocation with stable event names', () => {
    const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.audit === true).map((l) => l.event);
    expect(events).toEqual(
      expect.arrayContaining(['login.password.failure', 'login.password.success', 'login.mfa.success', 'token.issued', 'token.revoked']),
    );
  });

  it('never contains the password, the TOTP secret, the code or any token', () => {
    const log = lines.join('\n');
    expect(log.length).toBeGreaterThan(500);
    for (const secret of [user.password, 'wrong-password-123', user.totpSecret, code, tokens.access_token, tokens.refresh_token, tokens.id_token, server.testClient.clientSecret]) {
      expect(log).not.toContain(String(secret));
    }
  });
});

describe('token formats and client authentication methods', () => {
  let server: TestAuthServer;
  let user: TestUser;
  const jar = new CookieJar();
  beforeAll(async () => {
    server = await startServer({ tokenFormat: 'opaque' });
    user = await server.createUser({ groups: ['ops'] });
    expect((await signIn(server, jar, user, authorizeUrl(server))).status).toBe(302);
    await server.app.services.clients.create({
      clientId: 'post-client',
      // An operator's own app: no consent page (flow/consent.test.ts covers it).
      firstParty: true,
      redirectUris: ['http://127.0.0.1:6/cb'],
      authMethod: 'client_secret_post',
      clientSecret: 'post-client-secret-0123456789abcdef',
      grantTypes: ['authorization_code', 'refresh_token'],
    });
  });
  afterAll(() => server.close());

  it('opaque access tokens for the API are checked through introspection', async () => {
    const res = await request(jar, authorizeUrl(server, { scope: 'openid movies:read movies:write' }));
    const tokens = (await exchange(server, codeFrom(res.location))).body;
    const token = String(tokens.access_token);
    expect(token.split('.')).toHaveLength(1);
    const info = await introspect(server, token);
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ active: true, aud: server.audience, scope: 'openid movies:read movies:write', client_id: 'test-app', token_type: 'Bearer', iss: server.issuer });
  });

  it('a confidential client authenticates with its registered method only (client_secret_post here)', async () => {
    const res = await request(jar, authorizeUrl(server, { clientId: 'post-client', redirectUri: 'http://127.0.0.1:6/cb' }));
    const viaBody = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: codeFrom(res.location),
        redirect_uri: 'http://127.0.0.1:6/cb',
        client_id: 'post-client',
        client_secret: 'post-client-secret-0123456789abcdef',
      }),
    });
    expect(viaBody.status).toBe(200);
    const res2 = await request(jar, authorizeUrl(server, { clientId: 'post-client', redirectUri: 'http://127.0.0.1:6/cb' }));
    // The right secret by another method (Basic) is refused.
    const viaBasic = await exchange(server, codeFrom(res2.location), {}, { clientId: 'post-client', clientSecret: 'post-client-secret-0123456789abcdef', redirectUri: 'http://127.0.0.1:6/cb' });
    expect(viaBasic.status).toBe(401);
    expect(viaBasic.body).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });
    const res3 = await request(jar, authorizeUrl(server, { clientId: 'post-client', redirectUri: 'http://127.0.0.1:6/cb' }));
    const wrong = await exchange(server, codeFrom(res3.location), {}, { clientId: 'post-client', clientSecret: 'not-the-secret', redirectUri: 'http://127.0.0.1:6/cb' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
  });
});
