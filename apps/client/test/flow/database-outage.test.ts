/** A PostgreSQL outage under the relying party: a 503 page with Retry-After, then recovery by itself. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, startTestAuthServer, type TestAuthServer, type TestUser } from '@gatehouse/auth/testing';
import { startClient, type ClientHarness } from '../support/client-harness.ts';

describe('a database outage at the relying party', () => {
  let auth: TestAuthServer;
  let app: ClientHarness;
  let user: TestUser;

  beforeAll(async () => {
    auth = await startTestAuthServer();
    app = await startClient({ auth, outage: true });
    user = await auth.createUser();
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await auth?.close();
  });

  it('answers 503 while PostgreSQL is down and signs in again once it is back', async () => {
    const jar = new CookieJar();
    expect((await app.login(jar, user)).status).toBe(302);
    await app.outage!.down();
    const down = await app.get(jar, '/');
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(down.text).toContain('This application cannot reach its storage right now. Try again in a moment.');
    expect(app.logs.some((l) => l.level === 50 && l.msg === 'request failed')).toBe(false);

    await app.outage!.up();
    const up = await app.get(jar, '/');
    expect(up.status).toBe(200);
  });
});
