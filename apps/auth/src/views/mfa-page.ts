import { html, raw } from './html.ts';
import { layout } from './layout.ts';

export interface MfaPageModel {
  uid: string;
  username: string;
  error?: string;
  /** Present while the user has no TOTP yet: the page shows the QR code and the secret. */
  enrollment?: { secret: string; otpauthUri: string; qrSvg: string };
}

/** The second-factor step: a TOTP code, or first the enrollment of a TOTP app. */
export function mfaPage(model: MfaPageModel): string {
  const enrollment = model.enrollment
    ? html`<h1>Set up two-step verification</h1>
<p>Scan this QR code with an authenticator app (Google Authenticator, 1Password, Aegis…), then enter the 6-digit code it shows.</p>
<figure class="qr" aria-label="QR code for your authenticator app">${raw(model.enrollment.qrSvg)}</figure>
<p class="muted">Can't scan it? Enter this key by hand:</p>
<p><code id="totp-secret">${model.enrollment.secret}</code></p>`
    : html`<h1>Two-step verification</h1>
<p>Enter the 6-digit code from your authenticator app for <strong>${model.username}</strong>.</p>`;
  return layout({
    title: 'Two-step verification',
    body: html`${enrollment}
${model.error ? html`<p class="error" role="alert">${model.error}</p>` : ''}
<form method="post" action="/mfa/verify" autocomplete="off">
<input type="hidden" name="uid" value="${model.uid}">
<input type="hidden" name="method" value="totp">
<label for="code">Verification code</label>
<input id="code" name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required autofocus>
<button type="submit">Verify</button>
</form>`,
  });
}
