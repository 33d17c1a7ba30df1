/**
 * The second factor on a password-reset link's page (account/password-reset-page.ts): a code field
 * (TOTP or recovery code) when the account has one, a passkey button (the WebAuthn ceremony of
 * /static/passkey.js, which fills `credential` and submits the form) when it has a passkey.
 */
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

function pushFields(push: NonNullable<ResetFactor['push']>): SafeHtml {
  if (push.approvedId) {
    return html`<input type="hidden" name="push" value="${push.approvedId}">
<p class="notice" role="status" id="reset-push-approved">Approved on your authenticator. Choose your new password.</p>`;
  }
  if (push.waiting) {
    return html`<p>Pick this number on your authenticator to approve the reset:</p>
<p class="push-number" id="push-number" aria-label="Number to pick">${push.waiting.number}</p>
<div id="push-wait" data-status-url="${push.waiting.statusUrl}" data-poll-url="${push.waiting.pollUrl}">
<p class="muted" role="status">Waiting for your approval…</p>
<p><a href="${push.waiting.pollUrl}">I approved it — continue</a></p>
</div>`;
  }
  return html`${push.refused ? html`<p class="error" role="alert" id="reset-push-refused">The push was denied or expired. Send a new one.</p>` : ''}
<p class="muted">Confirm it's you with a push to your authenticator first.</p>
<button type="submit" class="secondary" id="reset-send-push" formaction="${push.sendUrl}" formnovalidate>Send a push to my authenticator</button>`;
}

export function resetFactorFields(factor: ResetFactor | undefined): SafeHtml | '' {
  if (!factor) return '';
  if (factor.push) return html`${pushFields(factor.push)}
<p class="muted" id="reset-code-hint">Your account has a second factor: confirm it's you before the new password is set.</p>`;
  if (!factor.code && !factor.passkeyOptionsUrl) return '';
  const code = factor.code
    ? html`<label for="reset-code">Code from your authenticator app, or a recovery code</label>
<input id="reset-code" name="code" autocomplete="one-time-code"${factor.passkeyOptionsUrl ? '' : html` required`} maxlength="64" aria-describedby="reset-code-hint">`
    : '';
  const passkey = factor.passkeyOptionsUrl
    ? html`<input type="hidden" name="uid" value="password-reset">
<input type="hidden" name="credential" value="">
<p class="muted">${factor.code ? 'Or confirm with your passkey or security key:' : 'Confirm with your passkey or security key:'}</p>
<button type="button"${factor.code ? html` class="secondary"` : ''} id="reset-passkey" data-passkey-start hidden>Use my passkey and set the password</button>
<p class="muted" role="status" data-passkey-status></p>`
    : '';
  return html`${code}
${passkey}
<p class="muted" id="reset-code-hint">Your account has a second factor: confirm it's you before the new password is set.</p>`;
}
