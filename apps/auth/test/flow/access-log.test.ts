/**
 * The access log of a real sign-in (password, then TOTP): each request's line names the route
 * that was asked for. `POST /mfa/verify` resumes the authorization internally as
 * `GET /oauth2/v1/authorize/<uid>` (routes/interactions.ts); its line must still say
 * `POST /mfa/verify`, with the status sent (packages/http access-log.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, capturingLogger, CookieJar, form, request, signIn, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';

describe('access log of a password + TOTP sign-in', () => {
  const { logger, lines } = capturingLogger();
  let server: TestAuthServer;

  beforeAll(async () => {
    server = await startServer({ logger });
  });
  afterAll(() => server.close());

  it('logs POST /login and POST /mfa/verify as themselves, with their statuses, and no internal authorize resume', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    const page = await request(jar, authorizeUrl(server));
    expect(page.status).toBe(200);
    const wrong = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid: uidOf(page.text), username: user.username, password: 'wrong-password-123' }) });
    expect(wrong.status).toBe(401);
    const done = await signIn(server, jar, user, authorizeUrl(server));
    expect(done.status).toBe(302);

    const requests = lines.filter((l) => l.event === 'http_request');
    expect(requests.map(({ level, method, path, status }) => ({ level, method, path, status }))).toEqual([
      { level: 30, method: 'GET', path: '/oauth2/v1/authorize', status: 200 },
      { level: 20, method: 'POST', path: '/login', status: 401 },
      { level: 30, method: 'GET', path: '/oauth2/v1/authorize', status: 200 },
      { level: 30, method: 'POST', path: '/login', status: 200 },
      { level: 30, method: 'POST', path: '/mfa/verify', status: 302 },
    ]);
    // One line per request, each with its own request id.
    expect(new Set(requests.map((l) => l.request_id)).size).toBe(5);
    // The password step and the second factor each happened, on the requests those lines name.
    const verify = requests.at(-1)!;
    expect(lines.filter((l) => l.event === 'login.mfa.success').map((l) => l.request_id)).toEqual([verify.request_id]);
  });
});
