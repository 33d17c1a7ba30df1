import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, CookieJar, form, request, signIn, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';
import { jsonBody } from '../support/index.ts';

let nextIp = 1;
const browser = () => new CookieJar({ 'x-forwarded-for': `203.0.113.${nextIp++}` });

describe('second factor and brute-force regulation', () => {
  let server: TestAuthServer;
  let offset = 0;
  const clock = () => Date.now() + offset;

  beforeAll(async () => {
    // Behind a trusted proxy each test's browser gets its own client IP, so per-IP counting
    // of one test does not lock out the next. The per-IP budget is lowered from 100 to 10 for the
    // IP test (brute-force-protection.test.ts covers the shipped policy).
    server = await startServer({ clock, env: { TRUST_PROXY: 'true', AUTH_REGULATION_IP_MAX_RETRIES: '10' } });
  });
  afterAll(() => server.close());

  async function passwordStep(jar: CookieJar, username: string, password: string) {
    const page = await request(jar, authorizeUrl(server));
    const uid = uidOf(page.text);
    const res = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username, password }) });
    return { uid, res };
  }

  it('a TOTP code is accepted once per account: the replay is refused', async () => {
    const user = await server.createUser();
    const now = clock();
    const code = await server.app.services.totp.generate(user.totpSecret, now);
    const first = browser();
    const a = await passwordStep(first, user.username, user.password);
    expect(a.res.status).toBe(200);
    expect(a.res.text).toContain('Two-step verification');
    const ok = await request(first, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: a.uid, code }) });
    expect(ok.status).toBe(302);

    const second = browser();
    const b = await passwordStep(second, user.username, user.password);
    const replay = await request(second, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ code }) });
    expect(replay.status).toBe(401);
    expect(replay.json()).toMatchObject({ error: 'code_replayed', error_description: 'That code was already used. Wait for the next code and try again.' });
    const page = await request(second, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: b.uid, code }) });
    expect(page.status).toBe(401);
    expect(page.text).toContain('That code was already used.');
    const next = await server.app.services.totp.generate(user.totpSecret, now + 30_000);
    const later = await request(second, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: b.uid, code: next }) });
    expect(later.status).toBe(302);
  });

  it('a wrong code re-renders the challenge with a message; codes two steps away are refused', async () => {
    const user = await server.createUser();
    const jar = browser();
    const { uid } = await passwordStep(jar, user.username, user.password);
    const stale = await server.app.services.totp.generate(user.totpSecret, clock() - 90_000);
    const res = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code: stale }) });
    expect(res.status).toBe(401);
    expect(res.text).toContain('That code is not valid.');
    expect(res.text).toContain('action="/mfa/verify"');
  });

  it('JSON callers get JSON for each step', async () => {
    const user = await server.createUser();
    const jar = browser();
    const start = await request(jar, authorizeUrl(server), { headers: { accept: 'application/json' } });
    expect(start.status).toBe(200);
    expect(start.json()).toMatchObject({ status: 'login_required', next: '/login', client: 'Test App' });
    const login = await request(jar, `${server.issuer}/login`, { method: 'POST', ...jsonBody({ username: user.username, password: user.password }) });
    expect(login.status).toBe(200);
    expect(login.json()).toEqual({ status: 'mfa_required', next: '/mfa/verify', methods: ['totp'] });
    const code = await server.app.services.totp.generate(user.totpSecret, clock());
    const done = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ code }) });
    expect(done.status).toBe(302);
    expect(done.json()).toEqual({ status: 'complete', redirect_to: done.location });
    expect(new URL(done.location!).searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
  });

  it('an unknown user and a wrong password get the same answer', async () => {
    const user = await server.createUser();
    const unknown = await passwordStep(browser(), 'nobody-here', 'whatever-password');
    const wrong = await passwordStep(browser(), user.username, 'wrong-password');
    expect(unknown.res.status).toBe(401);
    expect(wrong.res.status).toBe(401);
    expect(unknown.res.text).toContain('Invalid username or password.');
    expect(wrong.res.text).toContain('Invalid username or password.');
  });

  it('5 failures make the account wait 30 s: even the right password gets 429 until the wait ends', async () => {
    const user = await server.createUser();
    const jar = browser();
    for (let i = 0; i < 5; i += 1) {
      const { res } = await passwordStep(jar, user.username, `wrong-${i}`);
      expect(res.status).toBe(401);
    }
    const banned = await passwordStep(jar, user.username, user.password);
    expect(banned.res.status).toBe(429);
    expect(banned.res.headers.get('retry-after')).toBe('30');
    expect(banned.res.text).toContain('Too many attempts. Try again in 30 seconds.');

    const json = await request(jar, `${server.issuer}/login`, { method: 'POST', ...jsonBody({ username: user.username, password: user.password }) });
    expect(json.status).toBe(429);
    expect(json.json()).toMatchObject({ error: 'too_many_attempts' });

    offset += 30_000 + 1_000;
    const fresh = browser();
    const after = await passwordStep(fresh, user.username, user.password);
    expect(after.res.status).toBe(200);
    offset = 0;
  });

  it('failures are also counted per client IP (X-Forwarded-For trusted only when TRUST_PROXY is on)', async () => {
    const ip = '198.51.100.77';
    for (let i = 0; i < 10; i += 1) {
      const user = await server.createUser();
      const { res } = await passwordStep(new CookieJar({ 'x-forwarded-for': ip }), user.username, 'wrong-password');
      expect(res.status).toBe(401);
    }
    const other = await server.createUser();
    const banned = await passwordStep(new CookieJar({ 'x-forwarded-for': ip }), other.username, other.password);
    expect(banned.res.status).toBe(429);
    const elsewhere = await passwordStep(new CookieJar({ 'x-forwarded-for': '198.51.100.78' }), other.username, other.password);
    expect(elsewhere.res.status).toBe(200);
  });

  it('wrong codes count toward the lockout too', async () => {
    const user = await server.createUser();
    const jar = browser();
    const { uid } = await passwordStep(jar, user.username, user.password);
    for (let i = 0; i < 5; i += 1) {
      const res = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code: '000000' }) });
      expect(res.status).toBe(401);
    }
    const code = await server.app.services.totp.generate(user.totpSecret, clock());
    const banned = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
    expect(banned.status).toBe(429);
    expect(banned.text).toContain('Too many attempts.');
  });

  it('signIn helper still completes for a fresh user (sanity of the shared helper)', async () => {
    const user = await server.createUser();
    const done = await signIn(server, browser(), user, authorizeUrl(server), clock());
    expect(done.status).toBe(302);
  });
});
