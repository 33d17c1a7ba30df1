import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonBody } from '../support/index.ts';
import { codeFrom, decodeJwt, exchange, form, request, startServer, type TestAuthServer } from '../support/flow.ts';
import { browser, captureLogger, enrollDevice, passwordStep } from '../support/push.ts';

describe('recovery codes on the second-factor step', () => {
  let server: TestAuthServer;
  const clock = () => Date.now();
  const log = captureLogger();

  beforeAll(async () => {
    server = await startServer({ clock, env: { TRUST_PROXY: 'true' }, logger: log.logger });
  });
  afterAll(() => server.close());

  it('a recovery code replaces the TOTP code once; its reuse is refused', async () => {
    const user = await server.createUser();
    const { recoveryCodes } = await enrollDevice(server, user, clock);
    expect(recoveryCodes).toHaveLength(10);
    const [code, other] = recoveryCodes;

    const first = await passwordStep(server, user);
    expect(first.page.text).toContain('Use a recovery code');
    const done = await request(first.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: first.uid, method: 'recovery', code: code!.toUpperCase() }) });
    expect(done.status).toBe(302);
    expect(first.jar.cookies.has('gh_auth_session')).toBe(true);
    const tokens = await exchange(server, codeFrom(done.location));
    expect(decodeJwt(tokens.body.id_token as string)).toMatchObject({ amr: ['pwd', 'otp'] });
    expect(log.audits('login.mfa.success')).toContainEqual(expect.objectContaining({ method: 'recovery' }));

    const second = await passwordStep(server, user);
    const reuse = await request(second.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ method: 'recovery', code: code! }) });
    expect(reuse.status).toBe(401);
    expect(reuse.json()).toMatchObject({ error: 'code_replayed', error_description: 'That recovery code was already used. Each recovery code works once.', methods: ['totp', 'push', 'recovery'] });
    const page = await request(second.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: second.uid, method: 'recovery', code: code! }) });
    expect(page.status).toBe(401);
    expect(page.text).toContain('That recovery code was already used.');
    const wrong = await request(second.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ method: 'recovery', code: 'aaaa-bbbb-cccc-dddd' }) });
    expect(wrong.status).toBe(401);
    expect(wrong.json()).toMatchObject({ error: 'invalid_code', error_description: 'That recovery code is not valid.' });
    const missing = await request(second.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ method: 'recovery' }) });
    expect(missing.status).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'invalid_request', error_description: 'Field "code" is required.' });
    const ok = await request(second.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ method: 'recovery', code: other! }) });
    expect(ok.status).toBe(302);
    expect(log.raw.join('')).not.toContain(code!);
  });

  it('wrong recovery codes count toward the lockout', async () => {
    const user = await server.createUser();
    const { recoveryCodes } = await enrollDevice(server, user, clock);
    const { jar } = await passwordStep(server, user, browser());
    for (let i = 0; i < 5; i += 1) {
      const res = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ method: 'recovery', code: `wrong-${i}` }) });
      expect(res.status).toBe(401);
    }
    const banned = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ method: 'recovery', code: recoveryCodes[0]! }) });
    expect(banned.status).toBe(429);
    expect(banned.json()).toMatchObject({ error: 'too_many_attempts' });
  });

  it('new codes from the devices page replace the old ones', async () => {
    const user = await server.createUser();
    const { jar, recoveryCodes } = await enrollDevice(server, user, clock);
    const fresh = await request(jar, `${server.issuer}/authenticator/recovery-codes`, { method: 'POST', ...jsonBody({}) });
    expect(fresh.status).toBe(201);
    const codes = fresh.json<{ recovery_codes: string[] }>().recovery_codes;
    expect(codes).toHaveLength(10);
    const login = await passwordStep(server, user);
    const old = await request(login.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ method: 'recovery', code: recoveryCodes[0]! }) });
    expect(old.status).toBe(401);
    const ok = await request(login.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ method: 'recovery', code: codes[0]! }) });
    expect(ok.status).toBe(302);
  });

  it('an unknown method is refused', async () => {
    const user = await server.createUser();
    const { jar } = await passwordStep(server, user);
    const res = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ method: 'sms', code: '123456' }) });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request', error_description: 'Unsupported second-factor method "sms".' });
  });
});

describe('the second-factor page’s CSP', () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startServer({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => server.close());

  it('allows its forms to end in the redirect to the client (Chromium checks form-action on that 302)', async () => {
    const user = await server.createUser();
    const { jar, uid, page } = await passwordStep(server, user);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9;");
    const refused = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code: '000000' }) });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9;");
  });
});
