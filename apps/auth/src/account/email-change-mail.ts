/**
 * The two mails of an e-mail address change (account/change-email.ts), plain text and a simple
 * HTML body saying the same. Rules:
 * - the verification mail goes to the new address with the one-time link and when it expires; it
 *   is written in the language of the Profile page the change was asked on;
 * - the notice goes to the old address once the link was opened, naming the new address and what
 *   to do if the owner did not ask; it is written in the language of the request that opened the
 *   link (the account keeps no language: i18n/page-language.ts, requestLanguage).
 */
import { html } from '@gatehouse/html';
import type { PageLanguage } from '../i18n/page-language.ts';
import type { MailMessage } from '../mail/mailer.ts';

export function emailVerificationMail(model: { to: string; username: string; url: string; expiresInHours: number; language: PageLanguage }): MailMessage {
  const { t } = model.language;
  const hello = t('mail.hello', { username: model.username });
  const expires = t('mail.emailChange.expires', { hours: model.expiresInHours });
  const text = [hello, '', t('mail.emailChange.open'), '', model.url, '', expires].join('\n');
  const body = html`<p>${hello}</p>
<p>${t('mail.emailChange.open')}</p>
<p><a href="${model.url}">${t('mail.emailChange.use')}</a></p>
<p>${expires}</p>`;
  return { to: model.to, subject: t('mail.emailChange.subject'), text, html: body.value };
}

export function emailChangedMail(model: { to: string; username: string; newEmail: string; language: PageLanguage }): MailMessage {
  const { t } = model.language;
  const hello = t('mail.hello', { username: model.username });
  const changed = t('mail.emailChanged.changed', { email: model.newEmail });
  const text = [hello, '', changed, '', t('mail.emailChanged.notYou')].join('\n');
  const body = html`<p>${hello}</p>
<p>${changed}</p>
<p>${t('mail.emailChanged.notYou')}</p>`;
  return { to: model.to, subject: t('mail.emailChanged.subject'), text, html: body.value };
}
