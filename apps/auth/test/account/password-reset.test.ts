/**
 * One-time password-reset links over HTTP, on SQLite and PostgreSQL: issued by an operator
 * (admin/password-reset.ts), the link's page sets a new password by the policy, ends every
 * session, clears the lockouts and asks for a sign-in; a used, expired, replaced, unknown or
 * malformed link is one clear 410 page. Time moves only by the injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditor } from '../../src/audit/auditor.ts';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { AccountError } from '../../src/accounts/account-store.ts';
import { CLI_OPERATOR } from '../../src/audit/actor.ts';
import { issuePasswordReset } from '../../src/admin/password-reset.ts';
import { captureLogger } from '../support/push.ts';
import { authorizeUrl, codeFrom, CookieJar, exchange, form, refresh, request, signIn, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';

const INVALID = 'This password-reset link is not valid: it has expired, was already used, or was replaced by a newer one. Ask your administrator for a new link.';

describe.each(TEST_ENGINES)('password-reset links on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  const { logger, lines, audits } = captureLogger();
  let nextIp = 1;

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => clock.now, env: { TRUST_PROXY: 'true' }, logger });
  });
  afterAll(() => server.close());

  const browser = () => new CookieJar({ 'x-forwarded-for': `198.51.100.${nextIp++}` });
  const issue = (username: string) =>
    issuePasswordReset({ ...server.app.services, audit: createAuditor({ logger }), issuer: server.issuer }, CLI_OPERATOR, username);
  const open = (url: string, jar = browser()) => request(jar, url);
  const submit = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    request(browser(), url, { method: 'POST', headers: { ...form(fields).headers, origin: server.issuer, ...headers }, body: form(fields).body });

  async function signedIn(user: TestUser, jar: CookieJar) {
    clock.now += 31_000;
    const done = await signIn(server, jar, user, authorizeUrl(server, { scope: 'openid' }), clock.now);
    expect(done.status).toBe(302);
    const tokens = await exchange(server, codeFrom(done.location));
    expect(tokens.status).toBe(200);
    return tokens.body as { refresh_token: string };
  }
  const passwordStep = async (username: string, password: string, jar = browser()) => {
    const page = await request(jar, authorizeUrl(server));
    return request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid: uidOf(page.text), username, password }) });
  };

  it('sets a new password by the policy, ends every session and refresh token, clears the lockout, and asks for a sign-in', async () => {
    const user = await server.createUser();
    const jar = browser();
    const tokens = await signedIn(user, jar);
    // Locked out by someone guessing from one address.
    const attacker = browser();
    for (let i = 0; i < 5; i++) expect((await passwordStep(user.username, `guess-${i}`, attacker)).status).toBe(401);
    expect((await passwordStep(user.username, user.password, browser())).status).toBe(429);

    const { url, expiresAt, account } = await issue(user.username);
    expect(url).toMatch(new RegExp(`^${server.issuer}/account/password-reset/[A-Za-z0-9_-]{43}$`));
    expect(expiresAt).toBe(clock.now + 3_600_000);
    expect(audits('admin.user.reset_link_issued').at(-1)).toMatchObject({ actor_kind: 'operator', actor: 'cli', account_id: account.id });

    const page = await open(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.text).toContain(`<strong id="reset-username">${user.username}</strong>`);
    expect(page.text).toContain(`<form method="post" action="${new URL(url).pathname}">`);

    const weak = await submit(url, { new_password: 'too short', new_password_confirm: 'too short' });
    expect(weak.status).toBe(400);
    expect(weak.text).toContain('The new password must be at least 12 characters.</p>\n<p class="muted">Error code: <code>password_too_short</code></p>');
    const common = await submit(url, { new_password: '123qweasdzxc', new_password_confirm: '123qweasdzxc' });
    expect(common.status).toBe(400);
    expect(common.text).toContain('Error code: <code>password_common</code>');
    const mismatch = await submit(url, { new_password: 'a new passphrase here', new_password_confirm: 'another passphrase' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.text).toContain('Error code: <code>password_mismatch</code>');
    const crossSite = await submit(url, { new_password: 'a new passphrase here', new_password_confirm: 'a new passphrase here' }, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    // None of these used the link.
    expect((await open(url)).status).toBe(200);

    // The account has a second factor: the form asks for it, and the link is used only with it.
    expect((await open(url)).text).toContain('<input id="reset-code" name="code" autocomplete="one-time-code" required maxlength="64" aria-describedby="reset-code-hint">');
    const fresh = 'a new passphrase here';
    const noCode = await submit(url, { new_password: fresh, new_password_confirm: fresh });
    expect(noCode.status).toBe(400);
    expect(noCode.text).toContain('Enter the code of your authenticator app or a recovery code.</p>\n<p class="muted">Error code: <code>code_required</code></p>');
    const wrongCode = await submit(url, { new_password: fresh, new_password_confirm: fresh, code: '000000' });
    expect(wrongCode.status).toBe(401);
    expect(wrongCode.text).toContain('Error code: <code>invalid_code</code>');
    clock.now += 31_000;
    const code = await server.app.services.totp.generate(user.totpSecret, clock.now);
    const done = await submit(url, { new_password: fresh, new_password_confirm: fresh, code });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Your new password is set and every session of your account was signed out.');
    expect(done.text).toContain('<a href="/account" id="sign-in">Sign in with your new password</a>');

    expect((await request(jar, `${server.issuer}/account`, { headers: { accept: 'application/json' } })).status).toBe(401);
    const refused = await refresh(server, tokens.refresh_token);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
    expect(audits('account.password_reset').at(-1)).toMatchObject({ account_id: account.id, sessions: 1, grants: 1 });

    // The lockout is gone, the old password refused, the new one signs in.
    expect((await passwordStep(user.username, user.password)).status).toBe(401);
    expect((await passwordStep(user.username, fresh)).status).toBe(200);

    // Used: the same link is now invalid, to look at and to post.
    const reused = await open(url);
    expect(reused.status).toBe(410);
    expect(reused.text).toContain(INVALID);
    expect(reused.text).toContain('Error code: <code>reset_link_invalid</code>');
    expect((await submit(url, { new_password: 'yet another passphrase', new_password_confirm: 'yet another passphrase' })).status).toBe(410);

    // The token never reaches the log; the access log names the route pattern.
    const token = url.split('/').at(-1)!;
    expect(JSON.stringify(lines)).not.toContain(token);
    expect(JSON.stringify(lines)).not.toContain(fresh);
    expect(lines.filter((l) => l.event === 'http_request' && l.path === '/account/password-reset/:token').length).toBeGreaterThanOrEqual(8);
  });

  it('expires after one hour', async () => {
    const user = await server.createUser();
    const { url } = await issue(user.username);
    clock.now += 3_600_000 - 1;
    expect((await open(url)).status).toBe(200);
    clock.now += 1;
    const expired = await open(url);
    expect(expired.status).toBe(410);
    expect(expired.text).toContain(INVALID);
    const late = await submit(url, { new_password: 'a new passphrase here', new_password_confirm: 'a new passphrase here' });
    expect(late.status).toBe(410);
    const json = await request(browser(), url, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(410);
    expect(json.json()).toEqual({ error: 'reset_link_invalid', error_description: INVALID });
  });

  it('a new link replaces the old one; unknown and malformed tokens get the same answer', async () => {
    const user = await server.createUser();
    const first = await issue(user.username);
    const second = await issue(user.username);
    expect((await open(first.url)).status).toBe(410);
    expect((await open(second.url)).status).toBe(200);
    for (const token of ['A'.repeat(43), 'short', `${'A'.repeat(43)}B`, '..%2F..%2Fetc']) {
      const answer = await open(`${server.issuer}/account/password-reset/${token}`);
      expect(answer.status, token).toBe(410);
      expect(answer.text, token).toContain(INVALID);
    }
  });

  it('no link for an unknown or a disabled user, and a disabled user’s link stops working', async () => {
    await expect(issue('nobody')).rejects.toThrow(new AccountError('unknown_user', 'unknown user "nobody"'));
    const user = await server.createUser();
    const { url } = await issue(user.username);
    await server.app.services.accounts.setDisabled(user.username, clock.now);
    expect((await open(url)).status).toBe(410);
    await expect(issue(user.username)).rejects.toThrow(`user "${user.username}" is disabled; enable it before issuing a reset link`);
  });
});
