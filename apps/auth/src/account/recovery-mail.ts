/**
 * The password-recovery e-mail: plain text and a simple HTML body saying the same, the one-time
 * link, when it expires, and what to do if the user did not ask (nothing: the password stays).
 */
import { html } from '@gatehouse/html';
import type { MailMessage } from '../mail/mailer.ts';

export function recoveryMail(model: { to: string; username: string; url: string; expiresInMinutes: number }): MailMessage {
  const text = [
    `Hello ${model.username},`,
    '',
    'Someone (hopefully you) asked to reset the password of your Gatehouse account. Open this link to choose a new password:',
    '',
    model.url,
    '',
    `The link works once, for ${model.expiresInMinutes} minutes. If you did not ask for it, ignore this e-mail: your password stays as it is.`,
  ].join('\n');
  const body = html`<p>Hello ${model.username},</p>
<p>Someone (hopefully you) asked to reset the password of your Gatehouse account. Open this link to choose a new password:</p>
<p><a href="${model.url}">Choose a new password</a></p>
<p>The link works once, for ${String(model.expiresInMinutes)} minutes. If you did not ask for it, ignore this e-mail: your password stays as it is.</p>`;
  return { to: model.to, subject: 'Reset your Gatehouse password', text, html: body.value };
}
