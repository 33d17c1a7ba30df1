/**
 * OIDC Core 3.1.2.1's `prompt` and `max_age` over HTTP, with a first-party client (the consent
 * cases of a client that is not first-party are in consent.test.ts, `select_account` in
 * select-account.test.ts): every value Gatehouse advertises, the combinations the spec forbids,
 * an unknown value (refused), and `max_age` against the session's auth_time, `max_age=0` included. Time moves only by the injected clock, which starts 20 minutes
 * back: oidc-provider measures a session's age against the real time, so the sessions this test
 * makes are 20 minutes old to it, and younger than any max_age above that.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, codeFrom, CookieJar, decodeJwt, exchange, form, request, signIn, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';

describe('prompt and max_age', () => {
  let server: TestAuthServer;
  let user: TestUser;
  const clock = { now: Date.now() - 20 * 60_000 };
  const jar = new CookieJar();
  let signedInAt = 0;

  const withMaxAge = (maxAge: string, params: Parameters<typeof authorizeUrl>[1] = {}) => {
    const url = new URL(authorizeUrl(server, params));
    url.searchParams.set('max_age', maxAge);
    return url.toString();
  };
  const errorAtClient = (location: string | null) => {
    const target = new URL(location!);
    expect(`${target.origin}${target.pathname}`).toBe(server.testClient.redirectUri);
    return Object.fromEntries(target.searchParams);
  };
  const authTimeOf = async (location: string | null) => {
    const tokens = await exchange(server, codeFrom(location));
    expect(tokens.status).toBe(200);
    return decodeJwt(String(tokens.body.id_token)).auth_time;
  };
  /** Completes the login page `page` shows (password, then the next TOTP step). */
  const completeLogin = async (page: { text: string }) => {
    const uid = uidOf(page.text);
    expect((await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) })).status).toBe(200);
    clock.now += 31_000;
    const code = await server.app.services.totp.generate(user.totpSecret, clock.now);
    return request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
  };

  beforeAll(async () => {
    server = await startServer({ clock: () => clock.now });
    user = await server.createUser();
    const done = await signIn(server, jar, user, authorizeUrl(server), clock.now);
    expect(done.status).toBe(302);
    signedInAt = Math.floor(clock.now / 1000);
  });
  afterAll(() => server.close());

  it('discovery offers none, select_account, login and consent, and nothing else', async () => {
    const doc = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.prompt_values_supported).toEqual(['none', 'select_account', 'login', 'consent']);
  });

  it('an unknown prompt value is refused as unsupported, at the client with its state', async () => {
    const unknown = await request(jar, authorizeUrl(server, { prompt: 'sometimes', state: 'odd' }));
    expect(unknown.status).toBe(302);
    expect(errorAtClient(unknown.location)).toEqual({ error: 'invalid_request', error_description: 'unsupported prompt value requested', state: 'odd', iss: server.issuer });
  });

  it('prompt=none with another value is refused (prompt=login none)', async () => {
    const res = await request(jar, authorizeUrl(server, { prompt: 'login none', state: 'both' }));
    expect(res.status).toBe(302);
    expect(errorAtClient(res.location)).toEqual({ error: 'invalid_request', error_description: 'prompt none must only be used alone', state: 'both', iss: server.issuer });
  });

  it('no prompt with a session: a code, its ID token without auth_time (only max_age asks for it)', async () => {
    clock.now += 5_000;
    const res = await request(jar, authorizeUrl(server));
    expect(res.status).toBe(302);
    expect(await authTimeOf(res.location)).toBeUndefined();
  });

  it('max_age longer than the session age passes with the session auth_time; shorter asks for the login again', async () => {
    clock.now += 60_000;
    const fresh = await request(jar, withMaxAge('3600'));
    expect(fresh.status).toBe(302);
    expect(await authTimeOf(fresh.location)).toBe(signedInAt);

    const stale = await request(jar, withMaxAge('600'));
    expect(stale.status).toBe(200);
    expect(stale.text).toContain('<form method="post" action="/login"');
    const done = await completeLogin(stale);
    expect(done.status).toBe(302);
    signedInAt = Math.floor(clock.now / 1000);
    expect(await authTimeOf(done.location)).toBe(signedInAt);
  });

  it('max_age with prompt=none and an older session answers login_required; a young enough one a code', async () => {
    clock.now += 120_000;
    const stale = await request(jar, withMaxAge('600', { prompt: 'none', state: 'quiet' }));
    expect(stale.status).toBe(302);
    expect(errorAtClient(stale.location)).toMatchObject({ error: 'login_required', state: 'quiet', iss: server.issuer });
    const fresh = await request(jar, withMaxAge('3600', { prompt: 'none' }));
    expect(fresh.status).toBe(302);
    expect(await authTimeOf(fresh.location)).toBe(signedInAt);
  });

  it('max_age=0 always asks for the login, and the new login is the ID token auth_time', async () => {
    clock.now += 1_000;
    const page = await request(jar, withMaxAge('0'));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<form method="post" action="/login"');
    const done = await completeLogin(page);
    expect(done.status).toBe(302);
    signedInAt = Math.floor(clock.now / 1000);
    expect(await authTimeOf(done.location)).toBe(signedInAt);
  });

  it('prompt=login asks again even for a fresh session; prompt=login with max_age=0 asks once, not twice', async () => {
    const page = await request(jar, authorizeUrl(server, { prompt: 'login' }));
    expect(page.status).toBe(200);
    const done = await completeLogin(page);
    expect(done.status).toBe(302);
    signedInAt = Math.floor(clock.now / 1000);
    expect(await authTimeOf(done.location)).toBe(signedInAt);

    const both = await request(jar, withMaxAge('0', { prompt: 'login' }));
    expect(both.status).toBe(200);
    const after = await completeLogin(both);
    expect(after.status).toBe(302);
    expect(codeFrom(after.location)).toMatch(/^[\w-]{20,}$/);
  });

  it('prompt=consent with max_age=0: the login, then the consent page, then a code', async () => {
    clock.now += 1_000;
    const page = await request(jar, withMaxAge('0', { prompt: 'consent', state: 'mc' }));
    expect(page.status).toBe(200);
    expect(page.text).toContain('action="/login"');
    const consent = await completeLogin(page);
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('id="consent-allow"');
    const allowed = await request(jar, `${server.issuer}/consent`, {
      method: 'POST',
      headers: { ...form({}).headers, origin: server.issuer },
      body: form({ uid: uidOf(consent.text), decision: 'allow' }).body,
    });
    expect(allowed.status).toBe(302);
    expect(new URL(allowed.location!).searchParams.get('state')).toBe('mc');
    expect(await authTimeOf(allowed.location)).toBe(Math.floor(clock.now / 1000));
  });
});
