/**
 * The password-recovery e-mail: plain text and a simple HTML body saying the same, the one-time
 * link, when it expires, and what to do if the user did not ask (nothing: the password stays).
 * It is written in the language of the page the request came from (the account keeps no language).
 */
import { html } from '@gatehouse/html';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import type { MailMessage } from '../mail/mailer.ts';

export function recoveryMail(model: { to: string; username: string; url: string; expiresInMinutes: number; language?: PageLanguage }): MailMessage {
  const { t } = model.language ?? ENGLISH;
  const text = [
    t('mail.hello', { username: model.username }),
    '',
    t('mail.recovery.asked'),
    '',
    model.url,
    '',
    t('mail.recovery.expires', { minutes: model.expiresInMinutes }),
  ].join('\n');
  const body = html`<p>${t('mail.hello', { username: model.username })}</p>
<p>${t('mail.recovery.asked')}</p>
<p><a href="${model.url}">${t('mail.recovery.choose')}</a></p>
<p>${t('mail.recovery.expires', { minutes: model.expiresInMinutes })}</p>`;
  return { to: model.to, subject: t('mail.recovery.subject'), text, html: body.value };
}
