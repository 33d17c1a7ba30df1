/**
 * The preferred second factor (mfa/factor-order.ts, account/preferred-factor.ts): the page offers
 * one method first and alone under "Confirm it's you" (the one set as preferred on the account page,
 * else the one that passed last, else TOTP), the others behind "Try another method" with recovery
 * codes last; a refused method stays first; the account page sets the choice (same origin,
 * enrolled methods only, audited).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { jsonBody } from '../support/index.ts';
import { authorizeUrl, form, request, signIn, startServer, type CookieJar, type TestAuthServer, type TestUser } from '../support/flow.ts';
import { browser, captureLogger, enrollDevice, passwordStep, type SoftwareAuthenticator } from '../support/push.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';

const h1 = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];
/** The ids of the method blocks in page order, and where "Try another method" starts. */
function layoutOf(html: string): { first: string[]; others: string[] } {
  const ids = (text: string) => [...text.matchAll(/id="(totp-factor|push-factor|passkey-mfa)"|<summary>(Use a recovery code)<\/summary>/g)].map((m) => m[1] ?? 'recovery');
  const split = html.indexOf('<summary id="try-another">Try another method</summary>');
  return split < 0 ? { first: ids(html), others: [] } : { first: ids(html.slice(0, split)), others: ids(html.slice(split)) };
}

describe.each(TEST_ENGINES)('the preferred second factor on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  const log = captureLogger();

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, env: { TRUST_PROXY: 'true' }, logger: log.logger });
  });
  afterAll(() => server.close());

  /** A user with TOTP, a push device, a passkey and recovery codes, and a signed-in browser. */
  async function everyFactor(): Promise<{ user: TestUser; jar: CookieJar; authenticator: SoftwareAuthenticator; soft: SoftAuthenticator }> {
    const user = await server.createUser();
    const { jar, authenticator } = await enrollDevice(server, user, () => clock.now);
    const soft = new SoftAuthenticator(server.issuer);
    const options = await request(jar, `${server.issuer}/authenticator/passkeys/options`, { method: 'POST', ...jsonBody({}) });
    const registered = await request(jar, `${server.issuer}/authenticator/passkeys`, { method: 'POST', ...jsonBody({ name: 'Laptop', credential: JSON.stringify(soft.register(options.json())) }) });
    expect(registered.status).toBe(201);
    return { user, jar, authenticator, soft };
  }

  const nextCode = async (user: TestUser) => {
    clock.now += 31_000;
    return server.app.services.totp.generate(user.totpSecret, clock.now);
  };

  it('offers the last used factor first and alone, the others behind "Try another method", recovery codes last', async () => {
    const { user, soft } = await everyFactor();
    // The TOTP code of the enrollment sign-in passed last.
    const first = await passwordStep(server, user);
    expect(h1(first.page.text)).toBe("Confirm it's you");
    expect(first.page.text).toContain('Enter the 6-digit code from your authenticator app for');
    expect(layoutOf(first.page.text)).toEqual({ first: ['totp-factor'], others: ['push-factor', 'passkey-mfa', 'recovery'] });
    expect(first.page.text).toContain('<details class="other-methods" id="other-methods">');
    expect(first.page.text).toMatch(/<input id="code" name="code" [^>]* required autofocus>/);

    // A passkey passes: the next sign-in offers the passkey first; no code heading, no autofocus on a hidden code.
    const options = await request(first.jar, `${server.issuer}/mfa/passkey/options`, { method: 'POST', ...jsonBody({ uid: first.uid }) });
    const done = await request(first.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: first.uid, method: 'passkey', credential: JSON.stringify(soft.authenticate(options.json())) }) });
    expect(done.status).toBe(302);
    const accountId = (await server.app.services.accounts.findByUsername(user.username))!.id;
    expect(await server.app.services.factorPreferences.find(accountId)).toEqual({ preferred: null, lastUsed: 'passkey', lastUsedAt: clock.now });
    const second = await passwordStep(server, user);
    expect(h1(second.page.text)).toBe("Confirm it's you");
    expect(second.page.text).not.toContain('6-digit');
    expect(second.page.text).toContain('Use your passkey or security key.');
    expect(layoutOf(second.page.text)).toEqual({ first: ['passkey-mfa'], others: ['totp-factor', 'push-factor', 'recovery'] });
    expect(second.page.text).not.toContain('autofocus');
    // The code field keeps its label there.
    expect(second.page.text).toContain('<label for="code">Verification code</label>');

    // A wrong code typed from "Try another method": the code form comes first with the error.
    const wrong = await request(second.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: second.uid, code: '000000' }) });
    expect(wrong.status).toBe(401);
    expect(layoutOf(wrong.text)).toEqual({ first: ['totp-factor'], others: ['push-factor', 'passkey-mfa', 'recovery'] });
    expect(wrong.text).toContain('That code is not valid.');
    // A recovery code does not count as the last used factor.
    const recovery = await request(second.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: second.uid, method: 'recovery', code: 'aaaa-bbbb-cccc-dddd' }) });
    expect(layoutOf(recovery.text)).toEqual({ first: ['recovery'], others: ['totp-factor', 'push-factor', 'passkey-mfa'] });
    expect(recovery.text).toContain('<details class="alt-method" open>');
    const typed = await request(second.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: second.uid, code: await nextCode(user) }) });
    expect(typed.status).toBe(302);
    expect((await server.app.services.factorPreferences.find(accountId)).lastUsed).toBe('totp');
  });

  it('the account page sets the preferred factor: it wins over the last used one until set back', async () => {
    const { user, jar } = await everyFactor();
    const page = await request(jar, `${server.issuer}/account/security`);
    expect(page.text).toContain('<section id="preferred-factor"><h2>Sign-in method offered first</h2>');
    expect(page.text).toContain('<option value="last_used" selected>The method I used last (now: code from my authenticator app)</option>');
    expect(page.text).toContain('<option value="totp">Code from my authenticator app</option><option value="push">Push to my authenticator device</option><option value="passkey">Passkey or security key</option>');

    const set = await request(jar, `${server.issuer}/account/preferred-factor`, { method: 'POST', ...form({ factor: 'push' }) });
    expect(set.status).toBe(303);
    expect(set.location).toBe('/account/security');
    const accountId = (await server.app.services.accounts.findByUsername(user.username))!.id;
    expect(log.audits('account.preferred_factor_set').filter((l) => l.account_id === accountId)).toEqual([expect.objectContaining({ account_id: accountId, factor: 'push', ip: expect.any(String) })]);
    const shown = await request(jar, `${server.issuer}/account/security`);
    expect(shown.text).toContain('<p class="notice" role="status" id="notice" tabindex="-1">Saved. Your next sign-in offers this method first.</p>');
    expect(shown.text).toContain('<option value="push" selected>');

    const next = await passwordStep(server, user);
    expect(layoutOf(next.page.text)).toEqual({ first: ['push-factor'], others: ['totp-factor', 'passkey-mfa', 'recovery'] });
    expect(next.page.text).toContain('Send a request to your authenticator device, then approve it there.');
    // A TOTP code passes: the preference still wins.
    expect((await request(next.jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: next.uid, code: await nextCode(user) }) })).status).toBe(302);
    expect(layoutOf((await passwordStep(server, user)).page.text).first).toEqual(['push-factor']);

    // Back to "the one I used last" (JSON): TOTP passed last.
    const cleared = await request(jar, `${server.issuer}/account/preferred-factor`, { method: 'POST', ...jsonBody({ factor: 'last_used' }) });
    expect(cleared.status).toBe(200);
    expect(cleared.json()).toEqual({ preferred_factor: null });
    expect(layoutOf((await passwordStep(server, user)).page.text).first).toEqual(['totp-factor']);
  });

  it('refuses a method the account does not have, an unknown value, a cross-site post and no session', async () => {
    const user = await server.createUser();
    const jar = browser();
    expect((await signIn(server, jar, user, authorizeUrl(server), clock.now)).status).toBe(302);
    const page = await request(jar, `${server.issuer}/account/security`);
    expect(page.text).not.toContain('<option value="push"');
    const missing = await request(jar, `${server.issuer}/account/preferred-factor`, { method: 'POST', ...form({ factor: 'passkey' }) });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('<div class="error" role="alert" id="error" tabindex="-1"><p>Your account does not have this method. Add it on this page first, or choose another one.</p>');
    expect(missing.text).toContain('<code>factor_not_enrolled</code>');
    const unknown = await request(jar, `${server.issuer}/account/preferred-factor`, { method: 'POST', ...jsonBody({ factor: 'sms' }) });
    expect(unknown.status).toBe(400);
    expect(unknown.json()).toEqual({ error: 'invalid_request', error_description: 'Choose one of the listed sign-in methods.' });
    const cross = await request(jar, `${server.issuer}/account/preferred-factor`, { method: 'POST', headers: { ...form({ factor: 'totp' }).headers, 'sec-fetch-site': 'cross-site' }, body: form({ factor: 'totp' }).body });
    expect(cross.status).toBe(403);
    const anonymous = await request(browser(), `${server.issuer}/account/preferred-factor`, { method: 'POST', ...jsonBody({ factor: 'totp' }) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: 'login_required' });
    const accountId = (await server.app.services.accounts.findByUsername(user.username))!.id;
    expect((await server.app.services.factorPreferences.find(accountId)).preferred).toBeNull();
  });
});
