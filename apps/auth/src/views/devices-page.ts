/**
 * The pages the device actions of the account page answer with (views/account-page.ts lists the
 * devices). A page showing a one-time code or new recovery codes has no language switch: leaving it
 * would lose what it shows only once.
 */
import { html, raw, type SafeHtml } from '@gatehouse/html';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { layout } from './layout.ts';
import { COPY_CODES_SCRIPT, recoveryCodesBlock } from './recovery-codes-block.ts';
import { COUNTDOWN_SCRIPT, countdown } from './countdown.ts';

/** Where the "Add a device" page asks whether the code was used, and where it then goes. */
export const ENROLL_STATUS_PATH = '/authenticator/devices/enroll/status';
export const ENROLL_DONE_PATH = '/authenticator/devices/enroll/done';
const ENROLL_WAIT_SCRIPT = '/static/enroll-wait.js';

/** The codes one per line with Copy, Download and Print (recovery-codes-block.ts). */
function codesList(codes: string[], language: PageLanguage): SafeHtml {
  return html`${recoveryCodesBlock(codes, 'recovery-codes', language)}
<p class="muted">${language.t('devices.codesOnce')}</p>`;
}

/**
 * A one-time enrollment code for a new device (and the first recovery codes, once). The page
 * waits for the device (enroll-wait.js) and moves on to the done page by itself, unless it shows
 * recovery codes to save; the Continue button does the same without script.
 */
export function enrollmentPage(model: { username: string; code: string; url: string; qrSvg: string; expiresInSeconds: number; recoveryCodes?: string[]; language?: PageLanguage }): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('devices.addTitle'),
    scripts: [COUNTDOWN_SCRIPT, ENROLL_WAIT_SCRIPT, ...(model.recoveryCodes ? [COPY_CODES_SCRIPT] : [])],
    language,
    languageSwitch: false,
    body: html`<h1>${t('devices.addTitle')}</h1>
<p>${t('devices.scan')}</p>
<figure class="qr" aria-label="${t('devices.qrLabel')}">${raw(model.qrSvg)}</figure>
<p><a href="${model.url}" id="enrollment-link">${t('devices.openHere')}</a></p>
<p>${t('devices.orType')}</p>
<p class="user-code-shown"><code id="enrollment-code">${model.code}</code></p>
${countdown({ id: 'enrollment-expiry', seconds: model.expiresInSeconds, lead: t('devices.codeExpiresIn'), expired: t('devices.codeExpired'), language })}
<div id="enroll-wait" data-status-url="${ENROLL_STATUS_PATH}" data-done-url="${ENROLL_DONE_PATH}" data-auto="${model.recoveryCodes ? 'false' : 'true'}"
 data-waiting-text="${t('devices.waiting')}"
 data-enrolled-text="${t('devices.enrolledSaveCodes')}">
<p role="status" id="enroll-status">${t('devices.whenSetUp')}</p>
<form method="get" action="${ENROLL_DONE_PATH}"><button type="submit" class="secondary" id="enroll-continue">${t('devices.continue')}</button></form>
</div>
${model.recoveryCodes ? html`<h2>${t('devices.yourCodes')}</h2>${codesList(model.recoveryCodes, language)}` : ''}
<p><a href="/account/security#devices">${t('devices.backToAccount')}</a></p>`,
  });
}

/** Where "Add a device" leads: the device that enrolled, or why none did and a new code. */
export function enrollmentDonePage(model: ({ state: 'enrolled'; deviceName: string } | { state: 'pending' | 'expired' }) & { language?: PageLanguage }): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  const again = html`<form method="post" action="/authenticator/devices/enroll"><button type="submit" id="add-device-again">${t('devices.newCode')}</button></form>`;
  if (model.state === 'enrolled') {
    return layout({
      title: t('devices.addedTitle'),
      language,
      body: html`<h1>${t('devices.addedTitle')}</h1>
<p class="notice" role="status" id="enroll-done">${t('devices.added', { device: html`<strong>${model.deviceName}</strong>` })}</p>
<p><a href="/account/security#devices" id="back-to-account">${t('devices.backToAccount')}</a></p>`,
    });
  }
  return layout({
    title: model.state === 'pending' ? t('devices.pendingTitle') : t('devices.expiredTitle'),
    language,
    body: html`<h1>${model.state === 'pending' ? t('devices.pendingTitle') : t('devices.expiredHeading')}</h1>
<p class="error" role="alert" id="enroll-done">${model.state === 'pending' ? t('devices.pending') : t('devices.expired')}</p>
${again}
<p><a href="/account/security#devices">${t('devices.backToAccount')}</a></p>`,
  });
}

/** A fresh set of recovery codes, shown once. */
export function recoveryCodesPage(model: { username: string; codes: string[]; language?: PageLanguage }): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('devices.codesTitle'),
    scripts: [COPY_CODES_SCRIPT],
    language,
    languageSwitch: false,
    body: html`<h1>${t('devices.newCodesHeading')}</h1>
<p>${t('devices.oldCodesDead')}</p>
${codesList(model.codes, language)}
<p><a href="/account/security#devices">${t('devices.backToAccount')}</a></p>`,
  });
}
