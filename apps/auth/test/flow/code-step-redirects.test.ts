/**
 * The second-factor step answers a browser's form post with 303 to a GET (post/redirect/get), so
 * Back after the sign-in never posts a code again: the recovery codes of a first sign-in are shown
 * at /interaction/<uid>, a push waits at /mfa/push/<id>; API clients keep the wire contract's 200.
 * "Start over" and "I have saved them" are audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { hashPassword } from '../../src/accounts/password.ts';
import { jsonBody } from '../support/index.ts';
import { authorizeUrl, codeFrom, CookieJar, exchange, form, request, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';
import { captureLogger, enrollDevice } from '../support/push.ts';

const PASSWORD = 'correct horse battery staple';
const keyOf = (html: string) => /data-value="([A-Z2-7]+)"/.exec(html)?.[1];
/** A browser's navigation: a form post of a page (Sec-Fetch-Dest: document). */
const navigation = (fields: Record<string, string>) => {
  const body = form(fields);
  return { method: 'POST', headers: { ...body.headers, 'sec-fetch-dest': 'document' }, body: body.body };
};

describe.each(TEST_ENGINES)('the code step redirects after its post on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  const log = captureLogger();

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, logger: log.logger });
  });
  afterAll(() => server.close());

  const audited = (event: string, accountId: string) => log.audits(event).filter((line) => line.account_id === accountId).map(({ event: name, account_id, ip }) => ({ event: name, account_id, ip }));

  async function enrollingSignIn() {
    const account = await server.app.services.accounts.create({ username: `prg-${Math.random().toString(36).slice(2, 10)}`, email: 'p@example.com', name: 'Prg', groups: [], passwordHash: await hashPassword(PASSWORD) });
    const jar = new CookieJar();
    const uid = uidOf((await request(jar, authorizeUrl(server))).text);
    const step = await request(jar, `${server.issuer}/login`, navigation({ uid, username: account.username, password: PASSWORD }));
    expect(step.status).toBe(303);
    expect(step.location).toBe(`/interaction/${uid}`);
    const page = await request(jar, `${server.issuer}/interaction/${uid}`);
    return { account, jar, uid, secret: keyOf(page.text)! };
  }

  it('a first sign-in: the code post is 303 to /interaction/<uid> showing the recovery codes; "I have saved them" goes to the app; Back finds the finished sign-in', async () => {
    const { account, jar, uid, secret } = await enrollingSignIn();
    clock.now += 31_000;
    const verified = await request(jar, `${server.issuer}/mfa/verify`, navigation({ uid, code: await server.app.services.totp.generate(secret, clock.now) }));
    expect(verified.status).toBe(303);
    expect(verified.location).toBe(`/interaction/${uid}`);
    expect(verified.text).not.toContain('recovery-codes');

    // The GET shows the codes, the same on a reload, with the app's origin allowed as form action.
    const codes = await request(jar, `${server.issuer}/interaction/${uid}`);
    expect(codes.status).toBe(200);
    expect(codes.text).toContain('<h1>Save your recovery codes</h1>');
    expect(codes.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9;");
    const reload = await request(jar, `${server.issuer}/interaction/${uid}`);
    expect(reload.text).toBe(codes.text);

    const saved = await request(jar, `${server.issuer}/mfa/recovery-codes/saved`, navigation({ uid }));
    expect(saved.status).toBe(302);
    expect((await exchange(server, codeFrom(saved.location))).status).toBe(200);
    expect(audited('recovery.saved', account.id)).toEqual([{ event: 'recovery.saved', account_id: account.id, ip: expect.any(String) }]);

    // Back: the GET of the finished sign-in says so and leads on to the app (nothing is posted again).
    const back = await request(jar, `${server.issuer}/interaction/${uid}`);
    expect(back.status).toBe(200);
    expect(back.text).toContain('<h1>You are already signed in</h1>');
    expect(back.text).toMatch(/<a [^>]*id="way-on" href="http:\/\/127\.0\.0\.1:9\/">Continue to Test App<\/a>/);
  });

  it('"Start over" from a browser: 303 to /interaction/<uid>, which shows the new key with its notice once; a reload shows the same key without it; each press audited once', async () => {
    const { account, jar, uid, secret } = await enrollingSignIn();
    const restarted = await request(jar, `${server.issuer}/mfa/enrollment/restart`, navigation({ uid }));
    expect(restarted.status).toBe(303);
    expect(restarted.location).toBe(`/interaction/${uid}`);
    expect(restarted.text).not.toContain('This is a new key.');
    const shown = await request(jar, `${server.issuer}/interaction/${uid}`);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('<p class="notice" role="status">This is a new key. Remove the old Gatehouse entry from your authenticator app, then scan this QR code.</p>');
    const fresh = keyOf(shown.text)!;
    expect(fresh).not.toBe(secret);
    expect(await server.app.services.totpEnrollments.pendingSecret(account.id)).toBe(fresh);
    const german = await request(jar, `${server.issuer}/mfa/enrollment/restart`, navigation({ uid }));
    expect(german.status).toBe(303);
    const shownInGerman = await request(jar, `${server.issuer}/interaction/${uid}`, { headers: { 'accept-language': 'de' } });
    expect(shownInGerman.status).toBe(200);
    expect(shownInGerman.text).toContain('<p class="notice" role="status">Das ist ein neuer Schlüssel.');
    const newest = keyOf(shownInGerman.text)!;
    expect(newest).not.toBe(fresh);
    const reload = await request(jar, `${server.issuer}/interaction/${uid}`);
    expect(reload.status).toBe(200);
    expect(reload.text).not.toContain('class="notice"');
    expect(keyOf(reload.text)).toBe(newest);
    expect(audited('login.mfa.enrollment_restarted', account.id)).toHaveLength(2);
    // The newest key signs in.
    clock.now += 31_000;
    const verified = await request(jar, `${server.issuer}/mfa/verify`, navigation({ uid, code: await server.app.services.totp.generate(newest, clock.now) }));
    expect(verified.status).toBe(303);
    expect((await request(jar, `${server.issuer}/interaction/${uid}`)).text).toContain('<h1>Save your recovery codes</h1>');
  });

  it('an API client keeps the 200 with the codes; "Start over" is audited with the account and IP', async () => {
    const { account, jar, uid, secret } = await enrollingSignIn();
    const restarted = await request(jar, `${server.issuer}/mfa/enrollment/restart`, { method: 'POST', ...form({ uid }) });
    expect(restarted.status).toBe(200);
    expect(audited('login.mfa.enrollment_restarted', account.id)).toEqual([{ event: 'login.mfa.enrollment_restarted', account_id: account.id, ip: expect.any(String) }]);
    const fresh = keyOf(restarted.text)!;
    expect(fresh).not.toBe(secret);
    clock.now += 31_000;
    const verified = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ uid, code: await server.app.services.totp.generate(fresh, clock.now) }) });
    expect(verified.status).toBe(200);
    expect(verified.json()).toMatchObject({ status: 'recovery_codes_issued', next: '/mfa/recovery-codes/saved' });
    expect(audited('recovery.saved', account.id)).toEqual([]);
    const saved = await request(jar, `${server.issuer}/mfa/recovery-codes/saved`, { method: 'POST', ...jsonBody({ uid }) });
    expect(saved.status).toBe(302);
    expect(audited('recovery.saved', account.id)).toHaveLength(1);
    // "Start over" once the enrollment is confirmed changes nothing and audits nothing.
    expect(audited('login.mfa.enrollment_restarted', account.id)).toHaveLength(1);
  });

  it('a push chosen on the page: 303 to /mfa/push/<id>, the waiting page with its number', async () => {
    const user = await server.createUser();
    await enrollDevice(server, user, () => clock.now);
    const jar = new CookieJar();
    const uid = uidOf((await request(jar, authorizeUrl(server))).text);
    expect((await request(jar, `${server.issuer}/login`, navigation({ uid, username: user.username, password: user.password }))).status).toBe(303);
    const sent = await request(jar, `${server.issuer}/mfa/verify`, navigation({ uid, method: 'push' }));
    expect(sent.status).toBe(303);
    expect(sent.location).toMatch(/^\/mfa\/push\/[\w-]+$/);
    const waiting = await request(jar, `${server.issuer}${sent.location}`);
    expect(waiting.status).toBe(200);
    expect(waiting.text).toContain('<h1>Approve the sign-in</h1>');
    expect(waiting.text).toContain(`data-poll-url="${sent.location}"`);
  });
});
