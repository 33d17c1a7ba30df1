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
}

/** The reset form's attributes: the passkey ceremony runs on the form itself. */
export function resetFormAttributes(factor: ResetFactor | undefined): SafeHtml | '' {
  return factor?.passkeyOptionsUrl ? html` id="reset-form" data-passkey="authenticate" data-options-url="${factor.passkeyOptionsUrl}"` : '';
}

export const resetScripts = (factor: ResetFactor | undefined): string[] => (factor?.passkeyOptionsUrl ? PASSKEY_SCRIPTS : []);

export function resetFactorFields(factor: ResetFactor | undefined): SafeHtml | '' {
  if (!factor || (!factor.code && !factor.passkeyOptionsUrl)) return '';
  const code = factor.code
    ? html`<label for="reset-code">Code from your authenticator app, or a recovery code</label>
<input id="reset-code" name="code" autocomplete="one-time-code"${factor.passkeyOptionsUrl ? '' : html` required`} maxlength="64" aria-describedby="reset-code-hint">`
    : '';
  const passkey = factor.passkeyOptionsUrl
    ? html`<input type="hidden" name="uid" value="password-reset">
<input type="hidden" name="credential" value="">
<p class="muted">${factor.code ? 'Or confirm with your passkey or security key:' : 'Confirm with your passkey or security key:'}</p>
<button type="button" class="secondary" id="reset-passkey" data-passkey-start hidden>Use my passkey and set the password</button>
<p class="muted" role="status" data-passkey-status></p>`
    : '';
  return html`${code}
${passkey}
<p class="muted" id="reset-code-hint">Your account has a second factor: confirm it's you before the new password is set.</p>`;
}
