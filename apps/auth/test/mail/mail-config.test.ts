/** AUTH_SMTP_URL and AUTH_MAIL_FROM (config/config.ts): read once, refused with the variable named. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';

const SECRETS = { AUTH_COOKIE_KEYS: 'c'.repeat(32), AUTH_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64url') };
const PRODUCTION = { NODE_ENV: 'production', AUTH_ISSUER: 'https://id.example.com', AUTH_API_AUDIENCE: 'https://api.example.com/api', ...SECRETS };
const DEV = { NODE_ENV: 'test', ...SECRETS };

describe('mail settings', () => {
  it('uses the development outbox without AUTH_SMTP_URL outside production, and no mail in production', () => {
    expect(loadConfig(DEV).mail).toEqual({ transport: 'outbox', from: 'Gatehouse <no-reply@localhost>' });
    expect(loadConfig(PRODUCTION).mail).toEqual({ transport: 'none' });
  });

  it('requires STARTTLS on smtp://, TLS from the start on smtps://, and none only with ?tls=off', () => {
    const from = 'Gatehouse <no-reply@example.com>';
    expect(loadConfig({ ...PRODUCTION, AUTH_SMTP_URL: 'smtp://mailer:p%40ss@mail.example.com:587', AUTH_MAIL_FROM: from }).mail).toEqual({
      transport: 'smtp',
      url: 'smtp://mailer:p%40ss@mail.example.com:587',
      from,
      tls: 'starttls',
    });
    expect(loadConfig({ ...PRODUCTION, AUTH_SMTP_URL: 'smtps://mail.example.com', AUTH_MAIL_FROM: 'no-reply@example.com' }).mail).toMatchObject({ tls: 'implicit', from: 'no-reply@example.com' });
    expect(loadConfig({ ...DEV, AUTH_SMTP_URL: 'smtp://127.0.0.1:2525?tls=off' }).mail).toMatchObject({ tls: 'off', from: 'Gatehouse <no-reply@localhost>' });
  });

  it('refuses a bad URL or From address, naming the variable, and asks production for a From address', () => {
    expect(() => loadConfig({ ...DEV, AUTH_SMTP_URL: 'http://mail.example.com' })).toThrow('AUTH_SMTP_URL');
    expect(() => loadConfig({ ...DEV, AUTH_SMTP_URL: 'http://mail.example.com' })).toThrow('expected an smtp:// (STARTTLS) or smtps:// (TLS) URL');
    expect(() => loadConfig({ ...DEV, AUTH_SMTP_URL: 'smtp://mail.example.com?tls=on' })).toThrow('the only query accepted is ?tls=off');
    expect(() => loadConfig({ ...DEV, AUTH_SMTP_URL: 'smtps://mail.example.com?tls=off' })).toThrow('?tls=off contradicts smtps://');
    expect(() => loadConfig({ ...DEV, AUTH_SMTP_URL: 'not a url' })).toThrow('expected smtp://[user:password@]host[:port] or smtps://…');
    expect(() => loadConfig({ ...DEV, AUTH_MAIL_FROM: 'nobody' })).toThrow('AUTH_MAIL_FROM');
    expect(() => loadConfig({ ...PRODUCTION, AUTH_SMTP_URL: 'smtps://mail.example.com' })).toThrow('AUTH_MAIL_FROM');
  });

  it('never shows the SMTP password in a refusal', () => {
    let message = '';
    try {
      loadConfig({ ...DEV, AUTH_SMTP_URL: 'smtp://user:hunter2secret@mail.example.com/path' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('AUTH_SMTP_URL');
    expect(message).not.toContain('hunter2secret');
  });
});
