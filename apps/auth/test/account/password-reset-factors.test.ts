/**
 * A password-reset link asks for whichever second factor the account has (account/password-reset-page.ts):
 * a passkey-only account confirms with its passkey (a WebAuthn assertion answering the link's own
 * options, once, counted like a wrong code when refused), never with nothing; an account with a
 * code and a passkey may give either; a push-only account approves a push first. On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createAuditor } from '../../src/audit/auditor.ts';
import { CLI_OPERATOR } from '../../src/audit/actor.ts';
import { issuePasswordReset } from '../../src/admin/password-reset.ts';
import { verifyPassword } from '../../src/accounts/password.ts';
import { jsonBody } from '../support/index.ts';
import { captureLogger, enrollDevice } from '../support/push.ts';
import { authorizeUrl, CookieJar, form, request, signIn, startServer, type TestAuthServer, type TestUser } from '../support/flow.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';

const FRESH = 'a brand new passphrase';

describe.each(TEST_ENGINES)('password-reset links ask for every kind of second factor on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  const { logger, audits } = captureLogger();
  let nextIp = 1;

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, env: { TRUST_PROXY: 'true' }, logger });
  });
  afterAll(() => server.close());

  const browser = () => new CookieJar({ 'x-forwarded-for': `198.51.100.${nextIp++}` });
  const issue = (username: string) => issuePasswordReset({ ...server.app.services, audit: createAuditor({ logger }), issuer: server.issuer }, CLI_OPERATOR, username);
  const submit = (url: string, fields: Record<string, string>) => request(browser(), url, { method: 'POST', headers: { ...form(fields).headers, origin: server.issuer }, body: form(fields).body });
  const options = async (url: string) => {
    const res = await request(browser(), `${url}/passkey-options`, { method: 'POST', headers: { ...jsonBody({ uid: 'password-reset' }).headers, origin: server.issuer }, body: jsonBody({ uid: 'password-reset' }).body });
    return res;
  };

  /** A user with a passkey; `keepCode` false: its TOTP is removed, so the passkey is its only second factor. */
  async function withPasskey(keepCode: boolean): Promise<{ user: TestUser; soft: SoftAuthenticator; accountId: string }> {
    const user = await server.createUser();
    const jar = browser();
    expect((await signIn(server, jar, user, authorizeUrl(server), clock.now)).status).toBe(302);
    const soft = new SoftAuthenticator(server.issuer);
    const registration = await request(jar, `${server.issuer}/authenticator/passkeys/options`, { method: 'POST', ...jsonBody({}) });
    const registered = await request(jar, `${server.issuer}/authenticator/passkeys`, { method: 'POST', ...jsonBody({ name: 'Key', credential: JSON.stringify(soft.register(registration.json())) }) });
    expect(registered.status).toBe(201);
    const accountId = (await server.app.services.accounts.findByUsername(user.username))!.id;
    if (!keepCode) {
      await server.database.db.updateTable('accounts').set({ totp_secret_sealed: null }).where('id', '=', accountId).execute();
      await server.database.db.deleteFrom('recovery_codes').where('account_id', '=', accountId).execute();
    }
    return { user, soft, accountId };
  }

  it('a passkey-only account: the page asks for the passkey; nothing, a code, a wrong or replayed assertion are refused; its passkey sets the password', async () => {
    const { user, soft, accountId } = await withPasskey(false);
    const { url } = await issue(user.username);
    const path = new URL(url).pathname;
    const page = await request(browser(), url);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="${path}" id="reset-form" data-passkey="authenticate" data-options-url="${path}/passkey-options">`);
    // The passkey is the only way on: its button is the primary one.
    expect(page.text).toContain('<button type="button" id="reset-passkey" data-passkey-start hidden>Use my passkey and set the password</button>');
    expect(page.text).not.toContain('id="reset-code"');
    expect(page.text).toContain('<script src="/static/passkey.js" defer></script>');

    const nothing = await submit(url, { new_password: FRESH, new_password_confirm: FRESH });
    expect(nothing.status).toBe(400);
    expect(nothing.text).toContain('Confirm it is you with your passkey or security key: press &quot;Use my passkey and set the password&quot;.');
    expect(nothing.text).toContain('<code>passkey_required</code>');
    const typed = await submit(url, { new_password: FRESH, new_password_confirm: FRESH, code: '123456' });
    expect(typed.status).toBe(400);
    expect(typed.text).toContain('<code>passkey_required</code>');

    // An assertion of another challenge (the login's) is refused and counted; the link stays usable.
    const foreignOptions = (await options(url)).json<{ challenge: string; allowCredentials: { id: string }[] }>();
    expect(foreignOptions.allowCredentials.map((c) => c.id)).toEqual([soft.credentials[0]!.id]);
    const forged = await submit(url, { new_password: FRESH, new_password_confirm: FRESH, credential: JSON.stringify(soft.authenticate({ ...foreignOptions, challenge: 'bm90LWEtY2hhbGxlbmdlLW9mLXRoaXMtbGluaw' })) });
    expect(forged.status).toBe(401);
    expect(forged.text).toContain('<code>passkey_challenge_invalid</code>');
    expect(await server.app.services.regulationStore.failuresSince(`mfa:${user.username.toLowerCase()}`, 0)).toHaveLength(1);

    const answer = JSON.stringify(soft.authenticate((await options(url)).json()));
    const done = await submit(url, { new_password: FRESH, new_password_confirm: FRESH, credential: answer });
    expect(done.status).toBe(200);
    expect(done.text).toContain('<h1>Password changed</h1>');
    const account = await server.app.services.accounts.findById(accountId);
    expect(await verifyPassword(account!.passwordHash, FRESH)).toBe(true);
    expect(audits('account.password_reset').filter((l) => l.account_id === accountId)).toHaveLength(1);
    // The answer is used up with the link.
    expect((await submit(url, { new_password: FRESH, new_password_confirm: FRESH, credential: answer })).status).toBe(410);
  });

  it('an account with a code and a passkey: the code field is optional, either one sets the password', async () => {
    const { user, soft } = await withPasskey(true);
    const { url } = await issue(user.username);
    const page = await request(browser(), url);
    expect(page.text).toContain('<input id="reset-code" name="code" autocomplete="one-time-code" maxlength="64" aria-describedby="reset-code-hint">');
    expect(page.text).toContain('Or confirm with your passkey or security key:');
    expect(page.text).toContain('<button type="button" class="secondary" id="reset-passkey" data-passkey-start hidden>');
    const nothing = await submit(url, { new_password: FRESH, new_password_confirm: FRESH });
    expect(nothing.status).toBe(400);
    expect(nothing.text).toContain('<code>code_required</code>');
    const done = await submit(url, { new_password: FRESH, new_password_confirm: FRESH, credential: JSON.stringify(soft.authenticate((await options(url)).json())) });
    expect(done.status).toBe(200);
  });

  it('the options need a live link of an account with a passkey, from this origin', async () => {
    const user = await server.createUser();
    const { url } = await issue(user.username);
    const none = await options(url);
    expect(none.status).toBe(404);
    expect(none.json()).toMatchObject({ error: 'passkey_unknown' });
    const gone = await options(`${server.issuer}/account/password-reset/${'x'.repeat(43)}`);
    expect(gone.status).toBe(410);
    const cross = await request(browser(), `${url}/passkey-options`, { method: 'POST', headers: { ...jsonBody({}).headers, 'sec-fetch-site': 'cross-site' }, body: '{}' });
    expect(cross.status).toBe(403);
  });

  it('a push-only account: the page sends a push first, waits for it, and only an approved push of this reset sets the password, once', async () => {
    const user = await server.createUser();
    const { authenticator } = await enrollDevice(server, user, () => clock.now);
    const accountId = (await server.app.services.accounts.findByUsername(user.username))!.id;
    await server.database.db.updateTable('accounts').set({ totp_secret_sealed: null }).where('id', '=', accountId).execute();
    await server.database.db.deleteFrom('recovery_codes').where('account_id', '=', accountId).execute();
    const { url } = await issue(user.username);
    const path = new URL(url).pathname;

    const page = await request(browser(), url);
    expect(page.text).toContain(`<button type="submit" class="secondary" id="reset-send-push" formaction="${path}/push" formnovalidate>Send a push to my authenticator</button>`);
    expect(page.text).not.toContain('id="reset-code"');
    const unconfirmed = await submit(url, { new_password: FRESH, new_password_confirm: FRESH });
    expect(unconfirmed.status).toBe(401);
    expect(unconfirmed.text).toContain('<code>push_not_approved</code>');

    const sent = await submit(`${url}/push`, { new_password: '', new_password_confirm: '' });
    expect(sent.status).toBe(303);
    expect(sent.location).toMatch(new RegExp(`^${path}\\?push=[\\w-]+$`));
    const id = new URL(sent.location!, server.issuer).searchParams.get('push')!;
    const waiting = await request(browser(), `${server.issuer}${sent.location}`);
    const number = /id="push-number"[^>]*>(\d{2})</.exec(waiting.text)?.[1];
    expect(number).toMatch(/^\d{2}$/);
    expect(waiting.text).toContain(`data-status-url="${path}/push/${id}/status"`);
    expect(waiting.text).toContain('<script src="/static/push-wait.js" defer></script>');
    expect((await request(browser(), `${url}/push/${id}/status`)).json()).toMatchObject({ state: 'PENDING' });
    expect((await request(browser(), `${url}/push/not-a-push/status`)).status).toBe(404);
    const listed = (await authenticator.list()).json<{ requests: { id: string; client_name?: string }[] }>().requests;
    expect(listed.map((r) => r.id)).toEqual([id]);

    expect((await authenticator.answer(id, 'approve', number!)).status).toBe(200);
    const approved = await request(browser(), `${server.issuer}${sent.location}`);
    expect(approved.text).toContain(`<input type="hidden" name="push" value="${id}">`);
    const done = await submit(url, { new_password: FRESH, new_password_confirm: FRESH, push: id });
    expect(done.status).toBe(200);
    expect(await verifyPassword((await server.app.services.accounts.findById(accountId))!.passwordHash, FRESH)).toBe(true);
    expect((await server.app.services.pushes.find(id))!.completedAt).not.toBeNull();

    // A new link: the used push does not confirm it again.
    const again = await issue(user.username);
    const reused = await submit(again.url, { new_password: FRESH, new_password_confirm: FRESH, push: id });
    expect(reused.status).toBe(401);
    expect(reused.text).toContain('<code>push_not_approved</code>');
  });
});
