import { html, raw } from '@gatehouse/html';
import { layout } from './layout.ts';
import { COUNTDOWN_SCRIPT, countdown } from './countdown.ts';
import { PASSKEY_SCRIPTS } from './login-page.ts';
import { PASSKEY_PATHS } from './passkey-paths.ts';
import { clientLine, type ClientBranding } from './client-line.ts';
import { COPY_CODES_SCRIPT, totpKeyBlock } from './recovery-codes-block.ts';

/** "Start over" of a TOTP enrollment (interactions/mfa/restart-enrollment.ts). */
export const ENROLLMENT_RESTART_PATH = '/mfa/enrollment/restart';

export interface MfaPageModel {
  uid: string;
  username: string;
  /** The app the sign-in is for (its display name and logo); absent: not named. */
  client?: ClientBranding;
  error?: string;
  /** The error's stable code, named under the message (docs/spec.md §7). */
  errorCode?: string;
  /** Present while the user has no TOTP yet: the page shows the QR code and the secret (the same on every view). */
  enrollment?: { secret: string; otpauthUri: string; qrSvg: string };
  /** A message that is not an error (e.g. a new key after "Start over"). */
  notice?: string;
  /** The account has an authenticator device: offer "Send a push". */
  push?: boolean;
  /** The account has a passkey or security key: offer it. */
  passkey?: boolean;
  /** The account has unused recovery codes: offer one in place of a code. */
  recovery?: boolean;
  /** The refusal was of a recovery code: its box stays open (with the error) to try again. */
  recoveryOpen?: boolean;
  /** A push is waiting: show its number; the same-origin script polls statusUrl, then opens pollUrl. */
  waiting?: { number: number; pollUrl: string; statusUrl: string; expiresInSeconds: number };
}

/** The second-factor step: a TOTP code (or first the enrollment of a TOTP app), a push, a passkey, or a recovery code. */
export function mfaPage(model: MfaPageModel): string {
  const brand = model.client ? clientLine(model.client) : '';
  const heading = model.waiting
    ? html`<h1>Approve the sign-in</h1>
${brand}
<p>We sent a request to your authenticator. Pick this number there to approve it:</p>
<p class="push-number" id="push-number" aria-label="Number to pick">${model.waiting.number}</p>
<div id="push-wait" data-status-url="${model.waiting.statusUrl}" data-poll-url="${model.waiting.pollUrl}">
<p class="muted" role="status">Waiting for your approval…</p>
${countdown({ id: 'push-expiry', seconds: model.waiting.expiresInSeconds, lead: 'The request expires in', expired: 'The request has expired. Send a new push or use a code instead.' })}
<p><a href="${model.waiting.pollUrl}">I approved it — continue</a></p>
</div>
<p class="muted">Or enter a code from your authenticator app instead:</p>`
    : model.enrollment
      ? html`<h1>Set up two-step verification</h1>
${brand}
<p>Scan this QR code with an authenticator app (Google Authenticator, 1Password, Aegis…), then enter the 6-digit code it shows.</p>
<figure class="qr" aria-label="QR code for your authenticator app">${raw(model.enrollment.qrSvg)}</figure>
<p class="muted">Can't scan it? Enter this key by hand (spaces don't matter):</p>
${totpKeyBlock(model.enrollment.secret)}
<p class="muted" role="status" id="copy-status"></p>
<p class="muted">This key stays the same until you finish or start over, so reloading this page is safe. Your recovery codes come after the first code.</p>`
      : html`<h1>Two-step verification</h1>
${brand}
<p>Enter the 6-digit code from your authenticator app for <strong>${model.username}</strong>.</p>`;
  const push =
    model.push && !model.waiting
      ? html`<form method="post" action="/mfa/verify" class="alt-method">
<input type="hidden" name="uid" value="${model.uid}">
<input type="hidden" name="method" value="push">
<button type="submit" class="secondary" id="send-push">Send a push to my authenticator</button>
</form>`
      : '';
  const passkey =
    model.passkey && !model.waiting
      ? html`<form method="post" action="/mfa/verify" class="alt-method" id="passkey-mfa" data-passkey="authenticate" data-options-url="${PASSKEY_PATHS.mfaOptions}">
<input type="hidden" name="uid" value="${model.uid}">
<input type="hidden" name="method" value="passkey">
<input type="hidden" name="credential" value="">
<button type="button" class="secondary" id="use-passkey" data-passkey-start hidden>Use a passkey or security key</button>
<p class="muted" role="status" data-passkey-status></p>
</form>`
      : '';
  const recovery = model.recovery
    ? html`<details class="alt-method"${model.recoveryOpen ? raw(' open') : ''}>
<summary>Use a recovery code</summary>
<form method="post" action="/mfa/verify" autocomplete="off">
<input type="hidden" name="uid" value="${model.uid}">
<input type="hidden" name="method" value="recovery">
<label for="recovery-code">Recovery code</label>
<input id="recovery-code" name="code" maxlength="64" autocomplete="off" spellcheck="false" required>
<button type="submit" class="secondary">Use recovery code</button>
</form>
</details>`
    : '';
  return layout({
    title: 'Two-step verification',
    scripts: model.waiting ? ['/static/push-wait.js', COUNTDOWN_SCRIPT] : [...(passkey ? PASSKEY_SCRIPTS : []), ...(model.enrollment ? [COPY_CODES_SCRIPT] : [])],
    body: html`${heading}
${model.notice ? html`<p class="notice" role="status">${model.notice}</p>` : ''}
${model.error ? html`<p class="error" role="alert">${model.error}</p>` : ''}
${model.errorCode ? html`<p class="muted">Error code: <code>${model.errorCode}</code></p>` : ''}
<form method="post" action="/mfa/verify" autocomplete="off">
<input type="hidden" name="uid" value="${model.uid}">
<input type="hidden" name="method" value="totp">
<label for="code">Verification code</label>
<input id="code" name="code" inputmode="numeric" pattern="[0-9 \-]{6,9}" maxlength="9" autocomplete="one-time-code" required${model.waiting ? '' : raw(' autofocus')}>
<button type="submit">Verify</button>
</form>
${push}
${passkey}
${recovery}
${
  model.enrollment
    ? html`<form method="post" action="${ENROLLMENT_RESTART_PATH}" class="start-over">
<input type="hidden" name="uid" value="${model.uid}">
<p class="muted">Lost the entry, or scanned it on the wrong device?</p>
<button type="submit" class="secondary" id="start-over">Start over with a new key</button>
</form>`
    : ''
}`,
  });
}
