/**
 * The second factor on a password-reset link's page (account/password-reset-page.ts): a code field
 * (TOTP or recovery code) when the account has one, a passkey button (the WebAuthn ceremony of
 * /static/passkey.js, which fills `credential` and submits the form) when it has a passkey.
 */
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { passkeyStatus } from './passkey-status.ts';
import { html, type SafeHtml } from '@gatehouse/html';
import { PASSKEY_SCRIPTS } from './login-page.ts';

export interface ResetFactor {
  /** A TOTP code or a recovery code is accepted. */
  code: boolean;
  /** The account's passkey is accepted: the URL of its request options. */
  passkeyOptionsUrl?: string;
  /** A push to the account's device is asked for (its only factor): where to send it, and its state. */
  push?: {
    sendUrl: string;
    waiting?: { number: number; statusUrl: string; pollUrl: string };
    /** An approved push of this reset: posted with the new password. */
    approvedId?: string;
    /** The last push was denied or expired. */
    refused?: boolean;
  };
}

/** The reset form's attributes: the passkey ceremony runs on the form itself. */
export function resetFormAttributes(factor: ResetFactor | undefined): SafeHtml | '' {
  return factor?.passkeyOptionsUrl ? html` id="reset-form" data-passkey="authenticate" data-options-url="${factor.passkeyOptionsUrl}"` : '';
}

export const resetScripts = (factor: ResetFactor | undefined): string[] => [
  ...(factor?.passkeyOptionsUrl ? PASSKEY_SCRIPTS : []),
  ...(factor?.push?.waiting ? ['/static/push-wait.js'] : []),
];

function pushFields(push: NonNullable<ResetFactor['push']>, language: PageLanguage): SafeHtml {
  const { t } = language;
  if (push.approvedId) {
    return html`<input type="hidden" name="push" value="${push.approvedId}">
<p class="notice" role="status" id="reset-push-approved">${t('reset.pushApproved')}</p>`;
  }
  if (push.waiting) {
    return html`<p>${t('reset.pickNumber')}</p>
<p class="push-number" id="push-number" aria-label="${t('mfa.numberLabel')}">${push.waiting.number}</p>
<div id="push-wait" data-status-url="${push.waiting.statusUrl}" data-poll-url="${push.waiting.pollUrl}">
<p class="muted" role="status">${t('mfa.waiting')}</p>
<p><a href="${push.waiting.pollUrl}">${t('mfa.approvedContinue')}</a></p>
</div>`;
  }
  return html`${push.refused ? html`<p class="error" role="alert" id="reset-push-refused">${t('reset.pushRefused')}</p>` : ''}
<p class="muted">${t('reset.pushFirst')}</p>
<button type="submit" class="secondary" id="reset-send-push" formaction="${push.sendUrl}" formnovalidate>${t('mfa.sendPush')}</button>`;
}

export function resetFactorFields(factor: ResetFactor | undefined, language: PageLanguage = ENGLISH): SafeHtml | '' {
  const { t } = language;
  if (!factor) return '';
  if (factor.push) return html`${pushFields(factor.push, language)}
<p class="muted" id="reset-code-hint">${t('reset.secondFactor')}</p>`;
  if (!factor.code && !factor.passkeyOptionsUrl) return '';
  const code = factor.code
    ? html`<label for="reset-code">${t('reset.codeLabel')}</label>
<input id="reset-code" name="code" autocomplete="one-time-code"${factor.passkeyOptionsUrl ? '' : html` required`} maxlength="64" aria-describedby="reset-code-hint">`
    : '';
  const passkey = factor.passkeyOptionsUrl
    ? html`<input type="hidden" name="uid" value="password-reset">
<input type="hidden" name="credential" value="">
<p class="muted">${factor.code ? t('reset.orPasskey') : t('reset.passkey')}</p>
<button type="button"${factor.code ? html` class="secondary"` : ''} id="reset-passkey" data-passkey-start hidden>${t('reset.usePasskey')}</button>
${passkeyStatus(language)}`
    : '';
  return html`${code}
${passkey}
<p class="muted" id="reset-code-hint">${t('reset.secondFactor')}</p>`;
}
