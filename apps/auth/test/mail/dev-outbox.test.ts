/**
 * The development outbox (mail/dev-outbox.ts, mail/outbox-page.ts): without AUTH_SMTP_URL outside
 * production, mail is kept, written under the data dir, its links logged, and listed at
 * /dev/outbox; with any other mailer the page does not exist (404).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevOutbox } from '../../src/mail/dev-outbox.ts';
import { createSmtpMailer } from '../../src/mail/smtp-mailer.ts';
import { captureLogger } from '../support/push.ts';
import { CookieJar, request, startServer, type TestAuthServer } from '../support/flow.ts';

const MESSAGE = { to: 'alice@example.com', subject: 'Reset your password', text: 'Open http://127.0.0.1/account/password-reset/tok <script> to continue.', html: '<p>x</p>' };

describe('development outbox', () => {
  let server: TestAuthServer;
  const { logger, lines } = captureLogger();
  beforeAll(async () => {
    server = await startServer({ logger });
  });
  afterAll(() => server.close());

  it('keeps the mail, writes it under the data dir, logs its link and lists it at /dev/outbox', async () => {
    expect(server.app.mailer?.kind).toBe('outbox');
    const empty = await request(new CookieJar(), `${server.issuer}/dev/outbox`);
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('<p id="outbox-empty">No mail yet.</p>');
    await server.app.mailer!.send(MESSAGE);
    expect((server.app.mailer as DevOutbox).messages()).toMatchObject([{ id: 1, to: 'alice@example.com', links: ['http://127.0.0.1/account/password-reset/tok'] }]);
    const files = readdirSync(join(server.config.dataDir, 'outbox'));
    expect(files).toHaveLength(1);
    expect(readFileSync(join(server.config.dataDir, 'outbox', files[0]!), 'utf8')).toBe(`To: alice@example.com\nSubject: Reset your password\n\n${MESSAGE.text}`);
    expect(lines.find((line) => line.event === 'mail.outbox')).toMatchObject({ to: 'alice@example.com', subject: 'Reset your password', links: ['http://127.0.0.1/account/password-reset/tok'] });
    const page = await request(new CookieJar(), `${server.issuer}/dev/outbox`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain('<h2 id="mail-1-subject">Reset your password</h2>');
    expect(page.text).toContain('<a href="http://127.0.0.1/account/password-reset/tok" class="outbox-link">');
    expect(page.text).toContain('&lt;script&gt;');
    expect(page.text).not.toContain('<script> to continue');
  });

  it('does not exist with an SMTP mailer or without a mailer (production)', async () => {
    for (const mailer of [null, createSmtpMailer({ transport: 'smtp', url: 'smtp://127.0.0.1:9', from: 'a@example.com', tls: 'starttls' })]) {
      const other = await startServer({ mailer });
      try {
        expect((await request(new CookieJar(), `${other.issuer}/dev/outbox`)).status).toBe(404);
      } finally {
        await other.close();
      }
    }
  });
});
