/**
 * "Forgot password?" over HTTP on SQLite and PostgreSQL, with mail through a real SMTP server the
 * test starts (test/support/smtp-sink.ts; nodemailer holds a real SMTP conversation): the login
 * page's link keeps the interaction, the answer is the same whether or not an account matches, the
 * request is rate-limited (429 + Retry-After), the mailed link is single-use and expires (injected
 * clock), asks for the second factor, ends the other sessions and leads back to the sign-in page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { captureLogger } from '../support/push.ts';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../support/smtp-sink.ts';
import { authorizeUrl, CookieJar, form, request, signIn, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';

const SENT = 'If an account matches, we sent a link to choose a new password to its email address. The link works once, for 60 minutes.';

describe.each(TEST_ENGINES)('forgot password on %s', (engine) => {
  let server: TestAuthServer;
  let smtp: SmtpSink;
  const clock = { now: Date.now() };
  const { logger, lines, audits } = captureLogger();
  let nextIp = 1;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    server = await startServer({ engine, clock: () => clock.now, logger, env: { TRUST_PROXY: 'true', AUTH_SMTP_URL: `smtp://127.0.0.1:${smtp.port}?tls=off`, AUTH_MAIL_FROM: 'Gatehouse <no-reply@example.com>' } });
  });
  afterAll(async () => {
    await server.close();
    await smtp.close();
  });

  const browser = () => new CookieJar({ 'x-forwarded-for': `203.0.113.${nextIp++}` });
  const ask = (jar: CookieJar, identifier: string, query = '', headers: Record<string, string> = {}) =>
    request(jar, `${server.issuer}/account/forgot-password${query}`, { method: 'POST', headers: { ...form({ identifier }).headers, origin: server.issuer, ...headers }, body: form({ identifier }).body });
  const linkOf = (mail: ReceivedMail) => /https?:\/\/\S+\/account\/password-reset\/[A-Za-z0-9_-]{43}(?:\?return=[^\s"<]+)?/.exec(mail.decoded)![0];
  const post = (jar: CookieJar, url: string, fields: Record<string, string>) =>
    request(jar, url, { method: 'POST', headers: { ...form(fields).headers, origin: server.issuer }, body: form(fields).body });

  it('from the login page to a new password, with the second factor, ending the other sessions, back to the sign-in', async () => {
    const user = await server.createUser();
    // Signed in elsewhere: that session ends with the reset.
    const other = browser();
    clock.now += 31_000;
    expect((await signIn(server, other, user, authorizeUrl(server, { scope: 'openid' }), clock.now)).status).toBe(302);
    expect((await request(other, `${server.issuer}/account`, { headers: { accept: 'application/json' } })).status).toBe(200);

    const jar = browser();
    const login = await request(jar, authorizeUrl(server));
    const uid = uidOf(login.text);
    const returnQuery = `?return=${encodeURIComponent(`/interaction/${uid}`)}`;
    expect(login.text).toContain(`<a href="/account/forgot-password${returnQuery.replace(/&/g, '&amp;')}" id="forgot-password">Forgot password?</a>`);
    const page = await request(jar, `${server.issuer}/account/forgot-password${returnQuery}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="/account/forgot-password${returnQuery}">`);
    expect(page.text).toContain(`<a href="/interaction/${uid}" id="back-to-sign-in">Back to sign in</a>`);

    const sent = await ask(jar, `${user.username}@example.com`, returnQuery);
    expect(sent.status).toBe(200);
    expect(sent.text).toContain(SENT);
    expect(audits('password_reset.requested').at(-1)).toMatchObject({ sent: true, ip: expect.any(String) });
    const mail = await smtp.next();
    expect(mail.to).toEqual([`${user.username}@example.com`]);
    expect(mail.raw).toMatch(/^Subject: Reset your Gatehouse password\r$/m);
    const link = linkOf(mail);
    expect(link).toContain(`${server.issuer}/account/password-reset/`);
    expect(link.endsWith(returnQuery)).toBe(true);
    // The link is a credential: it is never logged.
    expect(JSON.stringify(lines)).not.toContain(link.split('/').at(-1)!.split('?')[0]);

    const reset = await request(jar, link);
    expect(reset.status).toBe(200);
    expect(reset.text).toContain('name="code"');
    const fresh = 'a brand new passphrase';
    const noFactor = await post(jar, link, { new_password: fresh, new_password_confirm: fresh, code: '000000' });
    expect(noFactor.status).toBe(401);
    clock.now += 31_000;
    const code = await server.app.services.totp.generate(user.totpSecret, clock.now);
    const done = await post(jar, link, { new_password: fresh, new_password_confirm: fresh, code: code.slice(0, 3) + ' ' + code.slice(3) });
    expect(done.status).toBe(200);
    expect(done.text).toContain(`<a href="/interaction/${uid}" id="sign-in">Sign in with your new password</a>`);
    expect((await request(other, `${server.issuer}/account`, { headers: { accept: 'application/json' } })).status).toBe(401);

    // Single use.
    expect((await request(jar, link)).status).toBe(410);
    // Back at the sign-in page of the interaction: the new password passes the password step.
    const back = await request(jar, `${server.issuer}/interaction/${uid}`);
    expect(back.status).toBe(200);
    const step = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: fresh }) });
    expect(step.status).toBe(200);
  });

  it('answers the same for an unknown account, sends nothing, and refuses a cross-site post', async () => {
    const user = await server.createUser();
    const known = await ask(browser(), user.username);
    const unknown = await ask(browser(), 'nobody-here@example.com');
    expect(unknown.status).toBe(known.status);
    expect(unknown.text).toBe(known.text);
    expect(audits('password_reset.requested').at(-1)).toEqual(expect.objectContaining({ sent: false }));
    expect(audits('password_reset.requested').at(-1)).not.toHaveProperty('account_id');
    const mail = await smtp.next();
    expect(mail.to).toEqual([`${user.username}@example.com`]);
    expect(smtp.received).toEqual([]);
    expect((await ask(browser(), user.username, '', { origin: 'https://evil.example' })).status).toBe(403);
    const empty = await ask(browser(), '   ');
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('Error code: <code>identifier_required</code>');
  });

  it('is rate-limited per typed name and per account (429 with Retry-After), the same for unknown names', async () => {
    const user = await server.createUser();
    for (let i = 0; i < 3; i++) expect((await ask(browser(), user.username)).status).toBe(200);
    for (let i = 0; i < 3; i++) await smtp.next();
    const limited = await ask(browser(), user.username);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3600');
    expect(limited.text).toContain('Error code: <code>too_many_attempts</code>');
    for (let i = 0; i < 3; i++) expect((await ask(browser(), 'ghost-user')).status).toBe(200);
    const ghost = await ask(browser(), 'ghost-user');
    expect(ghost.status).toBe(429);
    expect(ghost.headers.get('retry-after')).toBe('3600');
    // The account's own limit: by its e-mail address now, the answer is the same but nothing is sent.
    expect((await ask(browser(), `${user.username}@example.com`)).status).toBe(200);
    expect(audits('password_reset.requested').at(-1)).toMatchObject({ sent: false });
    clock.now += 3_600_000;
    expect((await ask(browser(), user.username)).status).toBe(200);
    expect((await smtp.next()).to).toEqual([`${user.username}@example.com`]);
    expect(smtp.received).toEqual([]);
  });

  it('the mailed link expires after one hour (injected clock)', async () => {
    const user = await server.createUser();
    expect((await ask(browser(), user.username)).status).toBe(200);
    const link = linkOf(await smtp.next());
    clock.now += 3_600_000 - 1;
    expect((await request(browser(), link)).status).toBe(200);
    clock.now += 1;
    expect((await request(browser(), link)).status).toBe(410);
  });
});

describe('forgot password without a mailer (production without AUTH_SMTP_URL)', () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startServer({ mailer: null });
  });
  afterAll(() => server.close());

  it('shows no link on the login page and answers 404 with a page saying to ask the administrator', async () => {
    const jar = new CookieJar();
    const login = await request(jar, authorizeUrl(server));
    expect(login.text).not.toContain('Forgot password?');
    for (const method of ['GET', 'POST']) {
      const answer = await request(jar, `${server.issuer}/account/forgot-password`, { method, headers: { ...form({ identifier: 'x' }).headers, origin: server.issuer }, ...(method === 'POST' ? { body: form({ identifier: 'x' }).body } : {}) });
      expect(answer.status).toBe(404);
      expect(answer.text).toContain('This server cannot send email, so you cannot reset your password yourself here. Ask your administrator');
      expect(answer.text).toContain('Error code: <code>password_recovery_unavailable</code>');
    }
  });
});
