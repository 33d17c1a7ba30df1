import { html, raw, type SafeHtml } from '@gatehouse/html';
import { layout } from './layout.ts';
import { COUNTDOWN_SCRIPT, countdown } from './countdown.ts';
import { PASSKEY_SCRIPTS } from './login-page.ts';
import { PASSKEY_PATHS } from './passkey-paths.ts';
import { clientLine, type ClientBranding } from './client-line.ts';
import { COPY_CODES_SCRIPT, totpKeyBlock } from './recovery-codes-block.ts';
import type { FactorOrder, MfaMethod } from '../mfa/factor-order.ts';

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
  /**
   * The account's methods (mfa/factor-order.ts): the one offered first, alone, and the others
   * behind "Try another method" (recovery codes last). Absent: TOTP alone.
   */
  methods?: FactorOrder;
  /** A push is waiting: show its number; the same-origin script polls statusUrl, then opens pollUrl. */
  waiting?: { number: number; pollUrl: string; statusUrl: string; expiresInSeconds: number };
}

/** What the page says under its heading for the method offered first. */
function intro(method: MfaMethod, username: string): SafeHtml {
  switch (method) {
    case 'push':
      return html`<p>Signing in as <strong>${username}</strong>. Send a request to your authenticator device, then approve it there.</p>`;
    case 'passkey':
      return html`<p>Signing in as <strong>${username}</strong>. Use your passkey or security key.</p>`;
    case 'recovery':
      return html`<p>Signing in as <strong>${username}</strong>. Enter one of your recovery codes; each works once.</p>`;
    default:
      return html`<p>Enter the 6-digit code from your authenticator app for <strong>${username}</strong>.</p>`;
  }
}

function codeForm(uid: string, autofocus: boolean): SafeHtml {
  return html`<form method="post" action="/mfa/verify" autocomplete="off" class="factor" id="totp-factor">
<input type="hidden" name="uid" value="${uid}">
<input type="hidden" name="method" value="totp">
<label for="code">Verification code</label>
<input id="code" name="code" inputmode="numeric" pattern="[0-9 \-]{6,9}" maxlength="9" autocomplete="one-time-code" required${autofocus ? raw(' autofocus') : ''}>
<button type="submit">Verify</button>
</form>`;
}

function pushForm(uid: string, first: boolean): SafeHtml {
  return html`<form method="post" action="/mfa/verify" class="${first ? 'factor' : 'alt-method'}" id="push-factor">
<input type="hidden" name="uid" value="${uid}">
<input type="hidden" name="method" value="push">
<button type="submit" class="${first ? '' : 'secondary'}" id="send-push">Send a push to my authenticator</button>
</form>`;
}

function passkeyForm(uid: string, first: boolean): SafeHtml {
  return html`<form method="post" action="/mfa/verify" class="${first ? 'factor' : 'alt-method'}" id="passkey-mfa" data-passkey="authenticate" data-options-url="${PASSKEY_PATHS.mfaOptions}">
<input type="hidden" name="uid" value="${uid}">
<input type="hidden" name="method" value="passkey">
<input type="hidden" name="credential" value="">
<button type="button" class="${first ? '' : 'secondary'}" id="use-passkey" data-passkey-start hidden>Use a passkey or security key</button>
<p class="muted" role="status" data-passkey-status></p>
</form>`;
}

function recoveryBox(uid: string, open: boolean): SafeHtml {
  return html`<details class="alt-method"${open ? raw(' open') : ''}>
<summary>Use a recovery code</summary>
<form method="post" action="/mfa/verify" autocomplete="off">
<input type="hidden" name="uid" value="${uid}">
<input type="hidden" name="method" value="recovery">
<label for="recovery-code">Recovery code</label>
<input id="recovery-code" name="code" maxlength="64" autocomplete="off" spellcheck="false" required>
<button type="submit" class="secondary">Use recovery code</button>
</form>
</details>`;
}

function methodBlock(method: MfaMethod, uid: string, first: boolean, autofocus: boolean): SafeHtml {
  if (method === 'push') return pushForm(uid, first);
  if (method === 'passkey') return passkeyForm(uid, first);
  if (method === 'recovery') return recoveryBox(uid, first);
  return codeForm(uid, autofocus);
}

/**
 * The second-factor step: the method offered first alone (the preferred or last used one, or
 * first the enrollment of a TOTP app), the account's other methods behind "Try another method"
 * (a disclosure that needs no script), recovery codes last; while a push waits, its number.
 */
export function mfaPage(model: MfaPageModel): string {
  const brand = model.client ? clientLine(model.client) : '';
  const methods = model.methods ?? { offered: 'totp', others: [] };
  const offered: MfaMethod = model.enrollment ? 'totp' : methods.offered;
  const others = model.enrollment ? methods.others.filter((m) => m !== 'totp') : methods.others;
  if (model.waiting) return waitingPage(model, brand, others);
  const heading = model.enrollment
    ? html`<h1>Set up two-step verification</h1>
${brand}
<p>Scan this QR code with an authenticator app (Google Authenticator, 1Password, Aegis…), then enter the 6-digit code it shows.</p>
<figure class="qr" aria-label="QR code for your authenticator app">${raw(model.enrollment.qrSvg)}</figure>
<p class="muted">Can't scan it? Enter this key by hand (spaces don't matter):</p>
${totpKeyBlock(model.enrollment.secret)}
<p class="muted" role="status" id="copy-status"></p>
<p class="muted">This key stays the same until you finish or start over, so reloading this page is safe. Your recovery codes come after the first code.</p>`
    : html`<h1>Confirm it's you</h1>
${brand}
${intro(offered, model.username)}`;
  const passkey = offered === 'passkey' || others.includes('passkey');
  return layout({
    title: 'Two-step verification',
    scripts: [...(passkey ? PASSKEY_SCRIPTS : []), ...(model.enrollment ? [COPY_CODES_SCRIPT] : [])],
    body: html`${heading}
${model.notice ? html`<p class="notice" role="status">${model.notice}</p>` : ''}
${model.error ? html`<p class="error" role="alert">${model.error}</p>` : ''}
${model.errorCode ? html`<p class="muted">Error code: <code>${model.errorCode}</code></p>` : ''}
${methodBlock(offered, model.uid, true, true)}
${
  others.length
    ? html`<details class="other-methods" id="other-methods">
<summary id="try-another">Try another method</summary>
${others.map((method) => methodBlock(method, model.uid, false, false))}
</details>`
    : ''
}
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

/** A push is waiting: its number and poller, with a code or a recovery code instead. */
function waitingPage(model: MfaPageModel, brand: SafeHtml | '', others: readonly MfaMethod[]): string {
  const waiting = model.waiting!;
  return layout({
    title: 'Approve the sign-in',
    scripts: ['/static/push-wait.js', COUNTDOWN_SCRIPT],
    body: html`<h1>Approve the sign-in</h1>
${brand}
<p>We sent a request to your authenticator. Pick this number there to approve it:</p>
<p class="push-number" id="push-number" aria-label="Number to pick">${waiting.number}</p>
<div id="push-wait" data-status-url="${waiting.statusUrl}" data-poll-url="${waiting.pollUrl}">
<p class="muted" role="status">Waiting for your approval…</p>
${countdown({ id: 'push-expiry', seconds: waiting.expiresInSeconds, lead: 'The request expires in', expired: 'The request has expired. Send a new push or use a code instead.' })}
<p><a href="${waiting.pollUrl}">I approved it — continue</a></p>
</div>
${model.error ? html`<p class="error" role="alert">${model.error}</p>` : ''}
${model.errorCode ? html`<p class="muted">Error code: <code>${model.errorCode}</code></p>` : ''}
<p class="muted">Or enter a code from your authenticator app instead:</p>
${codeForm(model.uid, false)}
${others.includes('recovery') ? recoveryBox(model.uid, false) : ''}`,
  });
}
