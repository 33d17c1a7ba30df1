import type { Device } from '../devices/device-store.ts';
import { html, raw, type SafeHtml } from '@gatehouse/html';
import { layout } from './layout.ts';
import { PASSKEY_SCRIPTS } from './login-page.ts';
import type { Passkey } from '../passkeys/passkey-store.ts';
import { PASSKEY_PATHS } from '../passkeys/passkey-paths.ts';

const date = (ms: number | null): string => (ms === null ? 'never' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC');

function codesList(codes: string[]): SafeHtml {
  return html`<ol class="codes" id="recovery-codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ol>
<p class="muted">Each code works once, in place of a code from your authenticator app or a push. They are shown only now: print them or keep them in a password manager.</p>`;
}

function passkeysSection(passkeys: Passkey[]): SafeHtml {
  return html`<h2>Passkeys and security keys</h2>
<p class="muted">A passkey signs you in without a password, or replaces the code after your password.</p>
${
  passkeys.length
    ? html`<ul class="devices" id="passkeys">${passkeys.map(
        (p) => html`<li><span><strong>${p.name}</strong><br><span class="muted">added ${date(p.createdAt)} · last used ${date(p.lastUsedAt)}</span></span>
<form method="post" action="${PASSKEY_PATHS.remove}"><input type="hidden" name="credential_id" value="${p.id}"><button type="submit" class="danger">Remove</button></form></li>`,
      )}</ul>`
    : html`<p id="passkeys">No passkey is registered yet.</p>`
}
<form method="post" action="${PASSKEY_PATHS.register}" id="passkey-register" data-passkey="register" data-options-url="${PASSKEY_PATHS.registerOptions}" data-register-url="${PASSKEY_PATHS.register}">
<label for="passkey-name">Name of the new passkey</label>
<input id="passkey-name" name="name" maxlength="64" value="Passkey" required>
<button type="submit" id="add-passkey" data-passkey-start hidden>Add a passkey</button>
<p class="muted" role="status" data-passkey-status></p>
</form>`;
}

/** Devices of the signed-in user, with enrollment, removal and recovery codes, and their passkeys. */
export function devicesPage(model: { username: string; devices: Device[]; recoveryCodesRemaining: number; passkeys: Passkey[] }): string {
  return layout({
    title: 'Authenticator devices',
    scripts: PASSKEY_SCRIPTS,
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
<p class="muted">Creating new codes makes the old ones stop working.</p>
${passkeysSection(model.passkeys)}`,
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
