/**
 * The SMTP mailer (mail/smtp-mailer.ts) in a real SMTP conversation: nodemailer against an
 * smtp-server listening on 127.0.0.1 (test/support/smtp-sink.ts), never a mock of nodemailer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSmtpMailer } from '../../src/mail/smtp-mailer.ts';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.ts';

const MESSAGE = { to: 'alice@example.com', subject: 'Reset your password', text: 'Open https://id.example.com/account/password-reset/abc to continue.', html: '<p>Open <a href="https://id.example.com/account/password-reset/abc">this link</a>.</p>' };

describe('SMTP mailer', () => {
  let sink: SmtpSink | undefined;
  afterEach(async () => {
    await sink?.close();
    sink = undefined;
  });

  it('hands a plain-text and HTML message to the server, from AUTH_MAIL_FROM, with the URL credentials', async () => {
    sink = await startSmtpSink({ credentials: { user: 'mailer@example.com', pass: 'p@ss word' } });
    const mailer = createSmtpMailer({ transport: 'smtp', url: `smtp://mailer%40example.com:p%40ss%20word@127.0.0.1:${sink.port}?tls=off`, from: 'Gatehouse <no-reply@example.com>', tls: 'off' });
    await mailer.send(MESSAGE);
    const mail = await sink.next();
    expect(mail.user).toBe('mailer@example.com');
    expect(mail.from).toBe('no-reply@example.com');
    expect(mail.to).toEqual(['alice@example.com']);
    expect(mail.raw).toMatch(/^From: Gatehouse <no-reply@example\.com>\r$/m);
    expect(mail.raw).toMatch(/^To: alice@example\.com\r$/m);
    expect(mail.raw).toMatch(/^Subject: Reset your password\r$/m);
    expect(mail.raw).toContain('Content-Type: multipart/alternative');
    expect(mail.raw).toContain('Content-Type: text/plain');
    expect(mail.raw).toContain('Content-Type: text/html');
    expect(mail.decoded).toContain('Open https://id.example.com/account/password-reset/abc to continue.');
  });

  it('refuses to send in clear when the server offers no STARTTLS (smtp:// requires it)', async () => {
    sink = await startSmtpSink({ starttls: false });
    const mailer = createSmtpMailer({ transport: 'smtp', url: `smtp://127.0.0.1:${sink.port}`, from: 'no-reply@example.com', tls: 'starttls' });
    await expect(mailer.send(MESSAGE)).rejects.toThrow(/STARTTLS/i);
    expect(sink.received).toEqual([]);
  });

  it("checks the server's certificate on smtps:// (smtp-server's built-in test certificate is not trusted)", async () => {
    sink = await startSmtpSink({ secure: true });
    const mailer = createSmtpMailer({ transport: 'smtp', url: `smtps://127.0.0.1:${sink.port}`, from: 'no-reply@example.com', tls: 'implicit' });
    await expect(mailer.send(MESSAGE)).rejects.toThrow(/certificate/i);
    expect(sink.received).toEqual([]);
  });
});
