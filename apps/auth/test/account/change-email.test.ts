/**
 * Changing the e-mail address on the account page over HTTP, on SQLite and PostgreSQL, with mail
 * through a real SMTP server the test starts (test/support/smtp-sink.ts): the new address is used
 * only after its one-time link is opened, the old address gets a notice, the link works once and
 * expires, each mail and page is in the language of the request that caused it, a bad address is refused at the top of the Profile page, and a sign-in older than
 * AUTH_ACCOUNT_REAUTH_MAX_AGE signs in again first. Time moves only by the injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { captureLogger } from '../support/push.ts';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.ts';
import { authorizeUrl, CookieJar, form, request, signIn, startServer, type TestAuthServer, type TestUser } from '../support/flow.ts';

describe.each(TEST_ENGINES)('changing the email address on %s', (engine) => {
  let server: TestAuthServer;
  let smtp: SmtpSink;
  const clock = { now: Date.now() };
  const { logger, audits } = captureLogger();

  beforeAll(async () => {
    smtp = await startSmtpSink();
    server = await startServer({ engine, clock: () => clock.now, logger, env: { AUTH_SMTP_URL: `smtp://127.0.0.1:${smtp.port}?tls=off`, AUTH_MAIL_FROM: 'Gatehouse <no-reply@example.com>' } });
  });
  afterAll(async () => {
    await server.close();
    await smtp.close();
  });

  const post = (jar: CookieJar, path: string, fields: Record<string, string>) =>
    request(jar, `${server.issuer}${path}`, { method: 'POST', headers: { ...form(fields).headers, origin: server.issuer }, body: form(fields).body });
  const linkIn = (text: string) => /http:\/\/127\.0\.0\.1:\d+\/account\/email\/verify\/[\w-]{43}/.exec(text)![0];

  async function signedIn(user: TestUser) {
    const jar = new CookieJar();
    clock.now += 31_000;
    expect((await signIn(server, jar, user, authorizeUrl(server), clock.now)).status).toBe(302);
    return jar;
  }
  const emailOf = async (user: TestUser) => (await server.app.services.accounts.findByUsername(user.username))!.email;

  it('mails a link to the new address; the address changes only when it is opened, once; the old address gets a notice', async () => {
    const user = await server.createUser();
    const jar = await signedIn(user);
    const profile = await request(jar, `${server.issuer}/account`);
    expect(profile.text).toContain('<form method="post" action="/account/email">');

    const asked = await post(jar, '/account/email', { email: 'ada.new@example.org' });
    expect(asked.status).toBe(303);
    expect(asked.location).toBe('/account');
    expect((await request(jar, `${server.issuer}/account`)).text).toContain('<p class="notice" role="status" id="notice" tabindex="-1">We sent a link to ada.new@example.org. Open it to start using that address; until then your current address stays.</p>');
    const mail = await smtp.next();
    expect(mail.to).toEqual(['ada.new@example.org']);
    expect(mail.decoded).toContain('Subject: Confirm your new email address');
    const link = linkIn(mail.decoded);
    expect(await emailOf(user)).toBe(`${user.username}@example.com`);
    const row = await server.database.db.selectFrom('email_changes').selectAll().executeTakeFirstOrThrow();
    expect(row.token_hash).not.toBe(link.split('/').at(-1));
    expect(audits('account.email_change.requested').at(-1)).toMatchObject({ ip: expect.any(String) });

    // Opened in any browser: the token proves the mailbox.
    const opened = await request(new CookieJar(), link);
    expect(opened.status).toBe(200);
    expect(opened.text).toContain('<h1>Email address changed</h1>\n<p class="" role="status">Your account now uses ada.new@example.org. A notice went to your previous address.</p>');
    expect(opened.text).toContain('<a class="button" id="way-on" href="/account">Go to your account</a>');
    expect(await emailOf(user)).toBe('ada.new@example.org');
    const notice = await smtp.next();
    expect(notice.to).toEqual([`${user.username}@example.com`]);
    expect(notice.decoded).toContain('changed to ada.new@example.org');
    expect(audits('account.email_changed').at(-1)).toMatchObject({ ip: expect.any(String) });

    const again = await request(new CookieJar(), link);
    expect(again.status).toBe(410);
    expect(again.text).toContain('<h1>Link not valid</h1>\n<p class="error" role="alert">This link is unknown, was already used or has expired. Ask for a new one on your account page.</p>');
    expect(again.text).toContain('<code>reset_link_invalid</code>');
  });

  it('each mail is in the language of the request that caused it: the link in the Profile page\'s, the notice in that of the request opening the link', async () => {
    const user = await server.createUser();
    const jar = await signedIn(user);
    const body = form({ email: 'ada.neu@example.org' });
    const asked = await request(jar, `${server.issuer}/account/email`, { method: 'POST', headers: { ...body.headers, origin: server.issuer, 'accept-language': 'de-DE,de;q=0.9' }, body: body.body });
    expect(asked.status).toBe(303);
    const mail = await smtp.next();
    expect(mail.to).toEqual(['ada.neu@example.org']);
    expect(mail.subject).toBe('Bestätigen Sie Ihre neue E-Mail-Adresse');
    const link = linkIn(mail.decoded);
    expect(mail.text).toBe(
      `Hallo ${user.username},\n\nÖffnen Sie diesen Link, um diese Adresse für Ihr Gatehouse-Konto zu verwenden:\n\n${link}\n\nDer Link funktioniert einmal und läuft in 24 Stunden ab. Wenn Sie nicht darum gebeten haben, ignorieren Sie diese E-Mail: Es ändert sich nichts.`,
    );
    expect(mail.decoded).toContain('>Diese E-Mail-Adresse verwenden</a>');

    const profile = await request(jar, `${server.issuer}/account`, { headers: { 'accept-language': 'de' } });
    expect(profile.text).toContain('<p class="notice" role="status" id="notice" tabindex="-1">Wir haben einen Link an ada.neu@example.org gesendet. Öffnen Sie ihn, um diese Adresse zu verwenden; bis dahin gilt Ihre bisherige Adresse.</p>');

    // The link opened by a browser whose language is German: its page and the notice to the old address are German too.
    const opened = await request(new CookieJar(), link, { headers: { 'accept-language': 'de' } });
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-language')).toBe('de');
    expect(opened.text).toContain('<html lang="de">');
    expect(opened.text).toContain('<h1>E-Mail-Adresse geändert</h1>\n<p class="" role="status">Ihr Konto verwendet jetzt ada.neu@example.org. Ihre bisherige Adresse hat einen Hinweis erhalten.</p>');
    expect(opened.text).toContain('<a class="button" id="way-on" href="/account">Zu Ihrem Konto</a>');
    const again = await request(new CookieJar(), link, { headers: { 'accept-language': 'de' } });
    expect(again.status).toBe(410);
    expect(again.text).toContain('<h1>Link ungültig</h1>\n<p class="error" role="alert">Dieser Link ist unbekannt, wurde schon verwendet oder ist abgelaufen. Fordern Sie auf Ihrer Kontoseite einen neuen an.</p>');
    expect(again.text).toContain('Fehlercode: <code>reset_link_invalid</code>');
    for (const page of [profile, opened, again]) expect(page.text).not.toContain('{{missing:');
    const notice = await smtp.next();
    expect(notice.to).toEqual([`${user.username}@example.com`]);
    expect(notice.subject).toBe('Ihre E-Mail-Adresse wurde geändert');
    expect(notice.text).toBe(
      `Hallo ${user.username},\n\nDie E-Mail-Adresse Ihres Gatehouse-Kontos wurde in ada.neu@example.org geändert.\n\nWenn Sie das nicht waren, melden Sie sich an und ändern Sie Ihr Passwort, oder bitten Sie Ihren Administrator um Hilfe.`,
    );
    for (const sent of [mail, notice]) expect(sent.decoded).not.toContain('{{missing:');
  });

  it('without a language, both mails are English', async () => {
    const user = await server.createUser();
    const jar = await signedIn(user);
    await post(jar, '/account/email', { email: 'ada.en@example.org' });
    const mail = await smtp.next();
    expect(mail.subject).toBe('Confirm your new email address');
    const link = linkIn(mail.decoded);
    expect(mail.text).toBe(`Hello ${user.username},\n\nOpen this link to use this address for your Gatehouse account:\n\n${link}\n\nThe link works once and expires in 24 hours. If you did not ask for this, ignore this mail: nothing changes.`);
    await request(new CookieJar(), link);
    const notice = await smtp.next();
    expect(notice.subject).toBe('Your email address was changed');
    expect(notice.text).toBe(`Hello ${user.username},\n\nThe email address of your Gatehouse account was changed to ada.en@example.org.\n\nIf you did not do this, sign in and change your password, or ask your administrator for help.`);
  });

  it('a link expires after 24 hours, and a newer request replaces an older link', async () => {
    const user = await server.createUser();
    const jar = await signedIn(user);
    await post(jar, '/account/email', { email: 'first@example.org' });
    const first = linkIn((await smtp.next()).decoded);
    await post(jar, '/account/email', { email: 'second@example.org' });
    const second = linkIn((await smtp.next()).decoded);
    expect((await request(new CookieJar(), first)).status).toBe(410);
    clock.now += 24 * 3600_000;
    expect((await request(new CookieJar(), second)).status).toBe(410);
    expect(await emailOf(user)).toBe(`${user.username}@example.com`);
  });

  it('refuses a bad address at the top of the Profile page, a cross-site post, and a stale sign-in', async () => {
    const user = await server.createUser();
    const jar = await signedIn(user);
    for (const email of ['not-an-address', `${user.username}@example.com`]) {
      const refused = await post(jar, '/account/email', { email });
      expect(refused.status, email).toBe(400);
      expect(refused.text, email).toMatch(/<h1>Your account<\/h1>\n<div class="error" role="alert" id="error" tabindex="-1"><p>[^<]+<\/p><p class="muted">Error code: <code>invalid_email<\/code><\/p><\/div>/);
    }
    const crossSite = await request(jar, `${server.issuer}/account/email`, { method: 'POST', headers: { ...form({ email: 'x@example.org' }).headers, origin: 'https://evil.example' }, body: form({ email: 'x@example.org' }).body });
    expect(crossSite.status).toBe(403);
    clock.now += 601_000;
    const stale = await post(jar, '/account/email', { email: 'late@example.org' });
    expect(stale.status).toBe(303);
    expect(new URL(stale.location!).searchParams.get('prompt')).toBe('login');
    expect(new URL(stale.location!).searchParams.get('state')).toBe('/account');
    expect(smtp.received.filter((m) => m.to.includes('late@example.org'))).toEqual([]);
    expect((await request(new CookieJar(), `${server.issuer}/account/email/verify/${'A'.repeat(43)}`)).status).toBe(410);
  });
});
