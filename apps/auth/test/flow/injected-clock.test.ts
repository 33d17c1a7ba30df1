/**
 * The sign-in runs on the injected clock: the login time handed to oidc-provider (the ID token's
 * `auth_time`) is the clock's, not the system's. The interaction's own expiry stays
 * oidc-provider's: the password step stores its result without moving it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { authorizeUrl, codeFrom, CookieJar, decodeJwt, exchange, form, request, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';

const DAY_MS = 86_400_000;

describe.each(TEST_ENGINES)('the injected clock during sign-in on %s', (engine) => {
  let server: TestAuthServer;
  // A day behind the system clock: a time taken from Date.now() would show.
  const clock = () => Date.now() - DAY_MS;

  beforeAll(async () => {
    server = await startServer({ engine, clock });
  });
  afterAll(() => server.close());

  const interactionExp = async (uid: string) => (await server.app.services.oidcAdapter.adapterFactory('Interaction').find(uid))?.exp;

  it('auth_time is the injected clock at the second factor; the password step keeps the interaction expiry', async () => {
    const user = await server.createUser();
    const jar = new CookieJar();
    // prompt=login makes oidc-provider put auth_time into the ID token.
    const page = await request(jar, authorizeUrl(server, { prompt: 'login' }));
    expect(page.status).toBe(200);
    const uid = uidOf(page.text);
    const expiresAt = await interactionExp(uid);
    expect(typeof expiresAt).toBe('number');

    const password = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) });
    expect(password.status).toBe(200);
    expect(await interactionExp(uid)).toBe(expiresAt);

    const before = Math.floor(clock() / 1000);
    const code = await server.app.services.totp.generate(user.totpSecret, clock());
    const done = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
    const after = Math.floor(clock() / 1000);
    expect(done.status).toBe(302);

    const tokens = await exchange(server, codeFrom(done.location));
    expect(tokens.status).toBe(200);
    const authTime = decodeJwt(String(tokens.body.id_token)).auth_time;
    expect(authTime).toBeGreaterThanOrEqual(before);
    expect(authTime).toBeLessThanOrEqual(after);
  });
});
