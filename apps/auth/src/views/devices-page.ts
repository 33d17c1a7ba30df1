/** The pages the device actions of the account page answer with (views/account-page.ts lists the devices). */
import { html, raw, type SafeHtml } from '@gatehouse/html';
import { layout } from './layout.ts';
import { COPY_CODES_SCRIPT, recoveryCodesBlock } from './recovery-codes-block.ts';
import { COUNTDOWN_SCRIPT, countdown } from './countdown.ts';

/** Where the "Add a device" page asks whether the code was used, and where it then goes. */
export const ENROLL_STATUS_PATH = '/authenticator/devices/enroll/status';
export const ENROLL_DONE_PATH = '/authenticator/devices/enroll/done';
const ENROLL_WAIT_SCRIPT = '/static/enroll-wait.js';

/** The codes one per line with Copy, Download and Print (recovery-codes-block.ts). */
function codesList(codes: string[]): SafeHtml {
  return html`${recoveryCodesBlock(codes)}
<p class="muted">Each code works once, in place of a code from your authenticator app or a push. They are shown only now: print them or keep them in a password manager.</p>`;
}

/**
 * A one-time enrollment code for a new device (and the first recovery codes, once). The page
 * waits for the device (enroll-wait.js) and moves on to the done page by itself, unless it shows
 * recovery codes to save; the Continue button does the same without script.
 */
export function enrollmentPage(model: { username: string; code: string; url: string; qrSvg: string; expiresInSeconds: number; recoveryCodes?: string[] }): string {
  return layout({
    title: 'Add a device',
    scripts: [COUNTDOWN_SCRIPT, ENROLL_WAIT_SCRIPT, ...(model.recoveryCodes ? [COPY_CODES_SCRIPT] : [])],
    body: html`<h1>Add a device</h1>
<p>On the phone or computer that will approve your sign-ins, scan this QR code or open the link, then give the device a name.</p>
<figure class="qr" aria-label="QR code of the enrollment link">${raw(model.qrSvg)}</figure>
<p><a href="${model.url}" id="enrollment-link">Open the authenticator on this device</a></p>
<p>Or type this one-time code in the authenticator:</p>
<p class="user-code-shown"><code id="enrollment-code">${model.code}</code></p>
${countdown({ id: 'enrollment-expiry', seconds: model.expiresInSeconds, lead: 'The code works once and expires in', expired: 'The code has expired. Create a new one on your account page.' })}
<div id="enroll-wait" data-status-url="${ENROLL_STATUS_PATH}" data-done-url="${ENROLL_DONE_PATH}" data-auto="${model.recoveryCodes ? 'false' : 'true'}"
 data-waiting-text="Waiting for the device… This page moves on by itself when it is set up."
 data-enrolled-text="Your device is set up. Save your recovery codes, then continue.">
<p role="status" id="enroll-status">When the device says it is set up, continue.</p>
<form method="get" action="${ENROLL_DONE_PATH}"><button type="submit" class="secondary" id="enroll-continue">Continue</button></form>
</div>
${model.recoveryCodes ? html`<h2>Your recovery codes</h2>${codesList(model.recoveryCodes)}` : ''}
<p><a href="/account#devices">Back to your account</a></p>`,
  });
}

/** Where "Add a device" leads: the device that enrolled, or why none did and a new code. */
export function enrollmentDonePage(model: { state: 'enrolled'; deviceName: string } | { state: 'pending' | 'expired' }): string {
  const again = html`<form method="post" action="/authenticator/devices/enroll"><button type="submit" id="add-device-again">Create a new code</button></form>`;
  if (model.state === 'enrolled') {
    return layout({
      title: 'Device added',
      body: html`<h1>Device added</h1>
<p class="notice" role="status" id="enroll-done"><strong>${model.deviceName}</strong> is set up: it can now approve your sign-ins.</p>
<p><a href="/account#devices" id="back-to-account">Back to your account</a></p>`,
    });
  }
  return layout({
    title: model.state === 'pending' ? 'Device not set up yet' : 'Code expired',
    body: html`<h1>${model.state === 'pending' ? 'Device not set up yet' : 'The code has expired'}</h1>
<p class="error" role="alert" id="enroll-done">${
      model.state === 'pending'
        ? 'No device has used the code yet. The code is shown only once: create a new one and type it in the authenticator on your device.'
        : 'No device used the code before it expired. Create a new one and type it in the authenticator on your device.'
    }</p>
${again}
<p><a href="/account#devices">Back to your account</a></p>`,
  });
}

/** A fresh set of recovery codes, shown once. */
export function recoveryCodesPage(model: { username: string; codes: string[] }): string {
  return layout({
    title: 'Recovery codes',
    scripts: [COPY_CODES_SCRIPT],
    body: html`<h1>New recovery codes</h1>
<p>Your previous recovery codes no longer work.</p>
${codesList(model.codes)}
<p><a href="/account#devices">Back to your account</a></p>`,
  });
}
