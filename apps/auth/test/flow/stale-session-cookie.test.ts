import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, CookieJar, request, signIn, startServer, type TestAuthServer } from '../support/flow.ts';

describe('a signed cookie of a session that no longer exists stores nothing', () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const sessions = () => server.database.db.selectFrom('oidc_payloads').select('id').where('model', '=', 'Session').execute();

  it('refused and anonymous requests carrying it leave no session row behind', async () => {
    const jar = new CookieJar();
    const done = await signIn(server, jar, await server.createUser(), authorizeUrl(server));
    expect(done.status).toBe(302);
    expect(await sessions()).toHaveLength(1);
    // The session ends server-side (expired and purged); the browser keeps its signed cookie.
    await server.database.db.deleteFrom('oidc_payloads').where('model', '=', 'Session').execute();

    const confirm = await request(jar, `${server.issuer}/oauth2/v1/logout/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'xsrf=forged&logout=yes',
    });
    expect(confirm.status).toBe(400);
    expect(confirm.json()).toEqual({ error: 'invalid_request', error_description: 'could not find logout details' });
    const refused = await request(jar, `${server.issuer}/oauth2/v1/authorize?response_type=code`);
    expect(refused.status).toBe(400);
    const silent = await request(jar, authorizeUrl(server, { prompt: 'none' }));
    expect(silent.status).toBe(302);
    expect(new URL(silent.location!).searchParams.get('error')).toBe('login_required');
    expect(await sessions()).toEqual([]);
  });

  it('a real sign-in from that browser still gets a session', async () => {
    await server.database.db.deleteFrom('oidc_payloads').where('model', '=', 'Session').execute();
    const jar = new CookieJar();
    const done = await signIn(server, jar, await server.createUser(), authorizeUrl(server));
    expect(done.status).toBe(302);
    expect(await sessions()).toHaveLength(1);
  });
});
