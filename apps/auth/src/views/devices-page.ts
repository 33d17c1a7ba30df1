import type { Device } from '../devices/device-store.ts';
import { html, raw, type SafeHtml } from '@gatehouse/html';
import { layout } from './layout.ts';

const date = (ms: number | null): string => (ms === null ? 'never' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC');

function codesList(codes: string[]): SafeHtml {
  return html`<ol class="codes" id="recovery-codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ol>
<p class="muted">Each code works once, in place of a code from your authenticator app or a push. They are shown only now: print them or keep them in a password manager.</p>`;
}

/** Devices of the signed-in user, with enrollment, removal and recovery codes. */
export function devicesPage(model: { username: string; devices: Device[]; recoveryCodesRemaining: number }): string {
  return layout({
    title: 'Authenticator devices',
    body: html`<h1>Authenticator devices</h1>
<p class="muted">Signed in as <strong>${model.username}</strong>. A device enrolled here can approve your sign-ins with a push.</p>
${
  model.devices.length
    ? html`<ul class="devices" id="devices">${model.devices.map(
        (d) => html`<li><span><strong>${d.name}</strong><br><span class="muted">added ${date(d.createdAt)} · last used ${date(d.lastUsedAt)}</span></span>
<form method="post" action="/authenticator/devices/remove"><input type="hidden" name="device_id" value="${d.id}"><button type="submit" class="danger">Remove</button></form></li>`,
      )}</ul>`
    : html`<p id="devices">No device is enrolled yet.</p>`
}
<form method="post" action="/authenticator/devices/enroll">
<button type="submit" id="add-device">Add a device</button>
</form>
<h2>Recovery codes</h2>
<p>You have <strong id="recovery-remaining">${model.recoveryCodesRemaining}</strong> unused recovery code(s).</p>
<form method="post" action="/authenticator/recovery-codes">
<button type="submit" class="secondary">Create new recovery codes</button>
</form>
<p class="muted">Creating new codes makes the old ones stop working.</p>`,
  });
}

/** A one-time enrollment code for a new device (and the first recovery codes, once). */
export function enrollmentPage(model: { username: string; code: string; url: string; qrSvg: string; expiresAt: number; recoveryCodes?: string[] }): string {
  return layout({
    title: 'Add a device',
    body: html`<h1>Add a device</h1>
<p>On the phone or computer that will approve your sign-ins, scan this QR code or open the link, then give the device a name.</p>
<figure class="qr" aria-label="QR code of the enrollment link">${raw(model.qrSvg)}</figure>
<p><a href="${model.url}" id="enrollment-link">Open the authenticator on this device</a></p>
<p class="muted">Or type this one-time code in the authenticator: <code id="enrollment-code">${model.code}</code><br>It works once, until ${date(model.expiresAt)}.</p>
${model.recoveryCodes ? html`<h2>Your recovery codes</h2>${codesList(model.recoveryCodes)}` : ''}
<p><a href="/authenticator/devices">Back to your devices</a></p>`,
  });
}

/** A fresh set of recovery codes, shown once. */
export function recoveryCodesPage(model: { username: string; codes: string[] }): string {
  return layout({
    title: 'Recovery codes',
    body: html`<h1>New recovery codes</h1>
<p>Your previous recovery codes no longer work.</p>
${codesList(model.codes)}
<p><a href="/authenticator/devices">Back to your devices</a></p>`,
  });
}
