import { html, raw, type SafeHtml } from '@gatehouse/html';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { layout } from './layout.ts';
import { stepError } from './step-error.ts';
import { passkeyStatus } from './passkey-status.ts';
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
  /** Present while the account enrols its first second factor (TOTP): the page shows the QR code and the secret (the same on every view). */
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
  /** The page's language (i18n/page-language.ts). */
  language?: PageLanguage;
}

/** What the page says under its heading for the method offered first. */
function intro(method: MfaMethod, username: string, language: PageLanguage): SafeHtml {
  const user = html`<strong>${username}</strong>`;
  switch (method) {
    case 'push':
      return html`<p>${language.t('mfa.introPush', { user })}</p>`;
    case 'passkey':
      return html`<p>${language.t('mfa.introPasskey', { user })}</p>`;
    case 'recovery':
      return html`<p>${language.t('mfa.introRecovery', { user })}</p>`;
    default:
      return html`<p>${language.t('mfa.introTotp', { user })}</p>`;
  }
}

function codeForm(uid: string, autofocus: boolean, language: PageLanguage): SafeHtml {
  return html`<form method="post" action="/mfa/verify" autocomplete="off" class="factor" id="totp-factor">
<input type="hidden" name="uid" value="${uid}">
<input type="hidden" name="method" value="totp">
<label for="code">${language.t('mfa.code')}</label>
<input id="code" name="code" inputmode="numeric" pattern="[0-9 \-]{6,9}" maxlength="9" autocomplete="one-time-code" required${autofocus ? raw(' autofocus') : ''}>
<button type="submit">${language.t('mfa.verify')}</button>
</form>`;
}

function pushForm(uid: string, first: boolean, language: PageLanguage): SafeHtml {
  return html`<form method="post" action="/mfa/verify" class="${first ? 'factor' : 'alt-method'}" id="push-factor">
<input type="hidden" name="uid" value="${uid}">
<input type="hidden" name="method" value="push">
<button type="submit" class="${first ? '' : 'secondary'}" id="send-push">${language.t('mfa.sendPush')}</button>
</form>`;
}

function passkeyForm(uid: string, first: boolean, language: PageLanguage): SafeHtml {
  return html`<form method="post" action="/mfa/verify" class="${first ? 'factor' : 'alt-method'}" id="passkey-mfa" data-passkey="authenticate" data-options-url="${PASSKEY_PATHS.mfaOptions}">
<input type="hidden" name="uid" value="${uid}">
<input type="hidden" name="method" value="passkey">
<input type="hidden" name="credential" value="">
<button type="button" class="${first ? '' : 'secondary'}" id="use-passkey" data-passkey-start hidden>${language.t('mfa.usePasskey')}</button>
${passkeyStatus(language)}
</form>`;
}

function recoveryBox(uid: string, open: boolean, language: PageLanguage): SafeHtml {
  return html`<details class="alt-method"${open ? raw(' open') : ''}>
<summary>${language.t('mfa.useRecovery')}</summary>
<form method="post" action="/mfa/verify" autocomplete="off">
<input type="hidden" name="uid" value="${uid}">
<input type="hidden" name="method" value="recovery">
<label for="recovery-code">${language.t('mfa.recoveryCode')}</label>
<input id="recovery-code" name="code" maxlength="64" autocomplete="off" spellcheck="false" required>
<button type="submit" class="secondary">${language.t('mfa.useRecoveryButton')}</button>
</form>
</details>`;
}

function methodBlock(method: MfaMethod, uid: string, first: boolean, autofocus: boolean, language: PageLanguage): SafeHtml {
  if (method === 'push') return pushForm(uid, first, language);
  if (method === 'passkey') return passkeyForm(uid, first, language);
  if (method === 'recovery') return recoveryBox(uid, first, language);
  return codeForm(uid, autofocus, language);
}

/**
 * The second-factor step: the method offered first alone (the preferred or last used one, or
 * first the enrollment of a TOTP app), the account's other methods behind "Try another method"
 * (a disclosure that needs no script), recovery codes last; while a push waits, its number.
 */
export function mfaPage(model: MfaPageModel): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  const brand = model.client ? clientLine(model.client, language) : '';
  const methods = model.methods ?? { offered: 'totp', others: [] };
  const offered: MfaMethod = model.enrollment ? 'totp' : methods.offered;
  const others = model.enrollment ? methods.others.filter((m) => m !== 'totp') : methods.others;
  if (model.waiting) return waitingPage(model, brand, others, language);
  const heading = model.enrollment
    ? html`<h1>${t('mfa.enrollTitle')}</h1>
${brand}
<p>${t('mfa.enrollScan')}</p>
<figure class="qr" aria-label="${t('mfa.qrLabel')}">${raw(model.enrollment.qrSvg)}</figure>
<p class="muted">${t('mfa.cantScan')}</p>
${totpKeyBlock(model.enrollment.secret, 'totp-secret', language)}
<p class="muted" role="status" id="copy-status" data-copied="${t('codes.copied')}" data-copy-failed="${t('codes.copyFailed')}" data-downloaded="${t('codes.downloaded')}"></p>
<p class="muted">${t('mfa.keyStays')}</p>`
    : html`<h1>${t('mfa.confirmTitle')}</h1>
${brand}
${intro(offered, model.username, language)}`;
  const passkey = offered === 'passkey' || others.includes('passkey');
  return layout({
    title: t('mfa.title'),
    scripts: [...(passkey ? PASSKEY_SCRIPTS : []), ...(model.enrollment ? [COPY_CODES_SCRIPT] : [])],
    language,
    languageReturn: `/interaction/${model.uid}`,
    body: html`${heading}
${model.notice ? html`<p class="notice" role="status">${model.notice}</p>` : ''}
${stepError(model, language)}
${methodBlock(offered, model.uid, true, true, language)}
${
  others.length
    ? html`<details class="other-methods" id="other-methods">
<summary id="try-another">${t('mfa.tryAnother')}</summary>
${others.map((method) => methodBlock(method, model.uid, false, false, language))}
</details>`
    : ''
}
${
  model.enrollment
    ? html`<form method="post" action="${ENROLLMENT_RESTART_PATH}" class="start-over">
<input type="hidden" name="uid" value="${model.uid}">
<p class="muted">${t('mfa.lostEntry')}</p>
<button type="submit" class="secondary" id="start-over">${t('mfa.startOver')}</button>
</form>`
    : ''
}`,
  });
}

/** A push is waiting: its number and poller, with a code or a recovery code instead. */
function waitingPage(model: MfaPageModel, brand: SafeHtml | '', others: readonly MfaMethod[], language: PageLanguage): string {
  const waiting = model.waiting!;
  const { t } = language;
  return layout({
    title: t('mfa.approveTitle'),
    scripts: ['/static/push-wait.js', COUNTDOWN_SCRIPT],
    language,
    languageReturn: waiting.pollUrl,
    body: html`<h1>${t('mfa.approveTitle')}</h1>
${brand}
<p>${t('mfa.pickNumber')}</p>
<p class="push-number" id="push-number" aria-label="${t('mfa.numberLabel')}">${waiting.number}</p>
<div id="push-wait" data-status-url="${waiting.statusUrl}" data-poll-url="${waiting.pollUrl}">
<p class="muted" role="status">${t('mfa.waiting')}</p>
${countdown({ id: 'push-expiry', seconds: waiting.expiresInSeconds, lead: t('mfa.requestExpiresIn'), expired: t('mfa.requestExpired'), language })}
<p><a href="${waiting.pollUrl}">${t('mfa.approvedContinue')}</a></p>
</div>
${stepError(model, language)}
<p class="muted">${t('mfa.orCode')}</p>
${codeForm(model.uid, false, language)}
${others.includes('recovery') ? recoveryBox(model.uid, false, language) : ''}`,
  });
}
