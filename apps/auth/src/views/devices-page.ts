/** The pages the device actions of the account page answer with (views/account-page.ts lists the devices). */
import { html, raw, type SafeHtml } from '@gatehouse/html';
import { layout } from './layout.ts';
import { COPY_CODES_SCRIPT, recoveryCodesBlock } from './recovery-codes-block.ts';

const date = (ms: number | null): string => (ms === null ? 'never' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC');

/** The codes one per line with Copy, Download and Print (recovery-codes-block.ts). */
function codesList(codes: string[]): SafeHtml {
  return html`${recoveryCodesBlock(codes)}
<p class="muted">Each code works once, in place of a code from your authenticator app or a push. They are shown only now: print them or keep them in a password manager.</p>`;
}

/** A one-time enrollment code for a new device (and the first recovery codes, once). */
export function enrollmentPage(model: { username: string; code: string; url: string; qrSvg: string; expiresAt: number; recoveryCodes?: string[] }): string {
  return layout({
    title: 'Add a device',
    scripts: model.recoveryCodes ? [COPY_CODES_SCRIPT] : [],
    body: html`<h1>Add a device</h1>
<p>On the phone or computer that will approve your sign-ins, scan this QR code or open the link, then give the device a name.</p>
<figure class="qr" aria-label="QR code of the enrollment link">${raw(model.qrSvg)}</figure>
<p><a href="${model.url}" id="enrollment-link">Open the authenticator on this device</a></p>
<p class="muted">Or type this one-time code in the authenticator: <code id="enrollment-code">${model.code}</code><br>It works once, until ${date(model.expiresAt)}.</p>
${model.recoveryCodes ? html`<h2>Your recovery codes</h2>${codesList(model.recoveryCodes)}` : ''}
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
