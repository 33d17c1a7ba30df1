/**
 * The first sign-in's TOTP enrollment keeps its state: the same key on every view until it is
 * confirmed or started over, recovery codes only after the first code, shown until the user
 * confirms they saved them; codes typed with spaces or dashes are accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { hashPassword } from '../../src/accounts/password.ts';
import { jsonBody } from '../support/index.ts';
import { authorizeUrl, codeFrom, CookieJar, decodeJwt, exchange, form, request, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';

const PASSWORD = 'correct horse battery staple';
const SEC = 1000;
const keyOf = (html: string) => /<code id="totp-secret" class="totp-key" data-value="([A-Z2-7]+)">([A-Z2-7 ]+)<\/code>/.exec(html);
const codesOf = (html: string) => [...html.matchAll(/<li><code>([0-9a-z-]{19})<\/code><\/li>/g)].map((m) => m[1]!);

describe.each(TEST_ENGINES)('TOTP enrollment that keeps its state on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now });
  });
  afterAll(() => server.close());

  async function newAccount() {
    return server.app.services.accounts.create({ username: `enrolling-${Math.random().toString(36).slice(2, 10)}`, email: 'e@example.com', name: 'Enrolling', groups: [], passwordHash: await hashPassword(PASSWORD) });
  }

  /** A new browser (a new tab, an expired page) up to the second-factor page. */
  async function passwordStep(username: string, jar = new CookieJar()) {
    const uid = uidOf((await request(jar, authorizeUrl(server))).text);
    const page = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username, password: PASSWORD }) });
    expect(page.status).toBe(200);
    return { jar, uid, page };
  }

  const codeAt = async (secret: string) => {
    clock.now += 31 * SEC;
    return server.app.services.totp.generate(secret, clock.now);
  };

  it('every view shows the same key, grouped in fours, until "Start over" makes a new one', async () => {
    const account = await newAccount();
    const first = await passwordStep(account.username);
    const [, secret, grouped] = keyOf(first.page.text)!;
    expect(grouped).toBe(secret!.match(/.{1,4}/g)!.join(' '));
    expect(first.page.text).toContain('data-copy="totp-secret"');
    expect(first.page.text).not.toContain('recovery-codes');
    // A reload re-posts the password form; a new tab starts a new sign-in: the same key.
    const reload = await request(first.jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid: first.uid, username: account.username, password: PASSWORD }) });
    expect(keyOf(reload.text)![1]).toBe(secret);
    const otherTab = await passwordStep(account.username);
    expect(keyOf(otherTab.page.text)![1]).toBe(secret);
    const json = await request(otherTab.jar, `${server.issuer}/login`, { method: 'POST', ...jsonBody({ uid: otherTab.uid, username: account.username, password: PASSWORD }) });
    expect(json.json()).toMatchObject({ status: 'mfa_required', enrollment: { secret, restart: '/mfa/enrollment/restart' } });
    // Kept sealed at rest.
    const row = await server.app.services.totpEnrollments.pendingSecret(account.id);
    expect(row).toBe(secret);

    const restarted = await request(first.jar, `${server.issuer}/mfa/enrollment/restart`, { method: 'POST', ...form({ uid: first.uid }) });
    expect(restarted.status).toBe(200);
    const fresh = keyOf(restarted.text)![1];
    expect(fresh).not.toBe(secret);
    expect(restarted.text).toContain('This is a new key. Remove the old Gatehouse entry from your authenticator app');
    // The other tab now shows (and accepts) the new key only.
    const again = await passwordStep(account.username);
    expect(keyOf(again.page.text)![1]).toBe(fresh);
    const stale = await request(again.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ code: await codeAt(secret!) }) });
    expect(stale.status).toBe(401);
    expect(stale.json()).toMatchObject({ error: 'invalid_code' });
  });

  it('recovery codes come after the first code, are shown again until "I have saved them", then never', async () => {
    const account = await newAccount();
    const first = await passwordStep(account.username);
    const secret = keyOf(first.page.text)![1]!;
    expect(await server.app.services.recoveryCodes.remaining(account.id)).toBe(0);

    // Typed with a space: accepted. The app is proven: the codes are shown, the login waits.
    const code = await codeAt(secret);
    const verified = await request(first.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: first.uid, code: `${code.slice(0, 3)} ${code.slice(3)}` }) });
    expect(verified.status).toBe(200);
    expect(verified.text).toContain('<h1>Save your recovery codes</h1>');
    const codes = codesOf(verified.text);
    expect(codes).toHaveLength(10);
    for (const attr of ['data-copy="recovery-codes"', 'data-download="recovery-codes"', 'data-print', '<script src="/static/copy-codes.js" defer>', 'action="/mfa/recovery-codes/saved"']) {
      expect(verified.text).toContain(attr);
    }
    expect(first.jar.cookies.has('gh_auth_session')).toBe(false);
    expect(await server.app.services.accounts.getTotpSecret(account.id)).toBe(secret);
    expect(await server.app.services.totpEnrollments.pendingSecret(account.id)).toBeUndefined();
    expect(await server.app.services.recoveryCodes.remaining(account.id)).toBe(10);

    // The user leaves; the next sign-in (no enrollment now) shows the same codes after its code.
    const second = await passwordStep(account.username);
    expect(second.page.text).not.toContain('totp-secret');
    const dashed = await codeAt(secret);
    const shownAgain = await request(second.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ uid: second.uid, code: `${dashed.slice(0, 3)}-${dashed.slice(3)}` }) });
    expect(shownAgain.status).toBe(200);
    expect(shownAgain.json()).toEqual({ status: 'recovery_codes_issued', recovery_codes: codes, next: '/mfa/recovery-codes/saved' });

    const saved = await request(second.jar, `${server.issuer}/mfa/recovery-codes/saved`, { method: 'POST', ...form({ uid: second.uid }) });
    expect(saved.status).toBe(302);
    const tokens = await exchange(server, codeFrom(saved.location));
    expect(decodeJwt(tokens.body.id_token as string)).toMatchObject({ amr: ['pwd', 'otp'] });
    expect(await server.app.services.totpEnrollments.unsavedCodes(account.id)).toBeUndefined();

    // Never again: the next sign-in ends at the client right after its code.
    const third = await passwordStep(account.username);
    const done = await request(third.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: third.uid, code: await codeAt(secret) }) });
    expect(done.status).toBe(302);
    // A "saved" post without a passed factor starts over.
    const fourth = await passwordStep(account.username);
    const early = await request(fourth.jar, `${server.issuer}/mfa/recovery-codes/saved`, { method: 'POST', ...jsonBody({ uid: fourth.uid }) });
    expect(early.status).toBe(400);
    expect(early.json()).toMatchObject({ error: 'password_required' });
  });

  it('a wrong recovery code keeps the recovery-code box open with its error', async () => {
    const account = await newAccount();
    const first = await passwordStep(account.username);
    const secret = keyOf(first.page.text)![1]!;
    await request(first.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: first.uid, code: await codeAt(secret) }) });
    await request(first.jar, `${server.issuer}/mfa/recovery-codes/saved`, { method: 'POST', ...form({ uid: first.uid }) });
    const next = await passwordStep(account.username);
    expect(next.page.text).toContain('<details class="alt-method">');
    const wrong = await request(next.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: next.uid, method: 'recovery', code: 'aaaa-bbbb-cccc-dddd' }) });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('<details class="alt-method" open>');
    expect(wrong.text).toContain('That recovery code is not valid.');
    const wrongTotp = await request(next.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: next.uid, code: '000 000' }) });
    expect(wrongTotp.text).toContain('<details class="alt-method">');
  });
});
