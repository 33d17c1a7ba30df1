/**
 * The self-service account page (/account) and its password-reset pages. Every form posts to
 * this origin and works without script; only adding a passkey needs the page script (WebAuthn).
 * Sections carry ids (#profile, #password, #totp, #devices, #passkeys, #sessions, #apps, #links) so links and
 * redirects can land on one.
 */
import { html, raw, type SafeHtml } from '@gatehouse/html';
import type { Device } from '../devices/device-store.ts';
import { PASSKEY_PATHS } from './passkey-paths.ts';
import { layout } from './layout.ts';
import { PASSKEY_SCRIPTS } from './login-page.ts';
import { preferredFactorSection, type PreferredFactorView } from './preferred-factor-section.ts';
import { resetFactorFields, resetFormAttributes, resetScripts, type ResetFactor } from './reset-factor-fields.ts';

const date = (ms: number | null | undefined): string => (ms === null || ms === undefined ? 'never' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC');

export type AccountSection = 'password' | 'totp' | 'sessions' | 'apps' | 'links';

/** An upstream identity provider linked to the account (account/linked-providers.ts). */
export interface LinkedProviderView {
  provider: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export interface AccountSessionView {
  browser: string;
  signedInAt: number | undefined;
  lastUsedAt: number | undefined;
  current: boolean;
  /** Names of the applications this session signed in to. */
  clients: string[];
}

export interface ConnectedAppView {
  clientId: string;
  name: string;
  scopes: string[];
  grantedAt: number;
  updatedAt: number;
}

/** What the page shows of a passkey (a stored passkey fits it). */
export interface PasskeyView {
  /** The credential id, base64url: the removal form names it. */
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export interface AccountPageModel {
  profile: { username: string; email: string; name: string; groups: string[] };
  totpEnrolled: boolean;
  devices: Device[];
  recoveryCodesRemaining: number;
  passkeys: PasskeyView[];
  sessions: AccountSessionView[];
  /** The apps the user allowed on the consent page (account/connected-apps.ts). */
  apps: ConnectedAppView[];
  /** The upstream identity providers the user signs in with. */
  links?: LinkedProviderView[];
  /** A confirmation shown at the top (after a redirect-after-post). */
  notice?: string;
  /** A refused form: its section shows the message and code. */
  error?: { section: AccountSection; code: string; message: string };
  /** The second factor offered first at sign-in (views/preferred-factor-section.ts). */
  preferredFactor?: PreferredFactorView;
  /** Second step of a TOTP re-enrollment: the new secret to scan and confirm. */
  totpEnrollment?: { sealed: string; secret: string; qrSvg: string };
}

function errorFor(model: AccountPageModel, section: AccountSection): SafeHtml | '' {
  const error = model.error;
  return error?.section === section
    ? html`<p class="error" role="alert" id="${section}-error">${error.message}</p>
<p class="muted">Error code: <code>${error.code}</code></p>`
    : '';
}

function profileSection(model: AccountPageModel): SafeHtml {
  const p = model.profile;
  return html`<section id="profile"><h2>Profile</h2>
<dl class="profile">
<dt>Username</dt><dd id="profile-username">${p.username}</dd>
<dt>Name</dt><dd id="profile-name">${p.name}</dd>
<dt>Email</dt><dd id="profile-email">${p.email}</dd>
<dt>Groups</dt><dd id="profile-groups">${p.groups.length ? p.groups.join(', ') : 'none'}</dd>
</dl>
<p class="muted">Ask your administrator to change these.</p></section>`;
}

function passwordSection(model: AccountPageModel): SafeHtml {
  return html`<section id="password"><h2>Change password</h2>
${errorFor(model, 'password')}
<form method="post" action="/account/password">
<label for="current-password">Current password</label>
<input id="current-password" name="current_password" type="password" autocomplete="current-password" required>
<label for="new-password">New password</label>
<input id="new-password" name="new_password" type="password" autocomplete="new-password" minlength="12" maxlength="128" required>
<label for="new-password-confirm">New password again</label>
<input id="new-password-confirm" name="new_password_confirm" type="password" autocomplete="new-password" minlength="12" maxlength="128" required>
<button type="submit" id="change-password">Change password</button>
</form>
<p class="muted">At least 12 characters; any characters, spaces included. Common and breached passwords are refused. Your other sessions are signed out.</p></section>`;
}

function totpSection(model: AccountPageModel): SafeHtml {
  const enrollment = model.totpEnrollment;
  if (enrollment) {
    return html`<section id="totp"><h2>Set up your new authenticator app</h2>
${errorFor(model, 'totp')}
<p>Scan this QR code with your authenticator app, then enter the 6-digit code it shows. Your current app keeps working until you confirm.</p>
<figure class="qr" aria-label="QR code for your authenticator app">${raw(enrollment.qrSvg)}</figure>
<p class="muted">Can't scan it? Enter this key by hand:</p>
<p><code id="new-totp-secret">${enrollment.secret}</code></p>
<form method="post" action="/account/totp/confirm" autocomplete="off">
<input type="hidden" name="enrollment" value="${enrollment.sealed}">
<label for="new-totp-code">Code from the new app</label>
<input id="new-totp-code" name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required>
<button type="submit" id="confirm-totp">Use this authenticator app</button>
</form>
<p><a href="/account#totp">Cancel</a></p></section>`;
  }
  const proof = model.totpEnrolled
    ? html`<label for="current-totp-code">Code from your current app (or a recovery code)</label>
<input id="current-totp-code" name="code" maxlength="64" autocomplete="one-time-code" spellcheck="false" required>`
    : html`<p class="muted">No authenticator app is set up yet; confirm with your password.</p>
<label for="totp-current-password">Current password</label>
<input id="totp-current-password" name="current_password" type="password" autocomplete="current-password" required>`;
  return html`<section id="totp"><h2>Authenticator app (TOTP)</h2>
${errorFor(model, 'totp')}
<p>${model.totpEnrolled ? 'An authenticator app is set up. To move to a new phone or app, prove the current one first.' : 'Set up an authenticator app for two-step verification.'}</p>
<form method="post" action="/account/totp" autocomplete="off">
${proof}
<button type="submit" class="secondary" id="start-totp">${model.totpEnrolled ? 'Set up a new authenticator app' : 'Set up an authenticator app'}</button>
</form></section>`;
}

function devicesSection(model: AccountPageModel): SafeHtml {
  return html`<section id="devices"><h2>Authenticator devices</h2>
<p class="muted">A device enrolled here can approve your sign-ins with a push.</p>
${
  model.devices.length
    ? html`<ul class="devices" id="device-list">${model.devices.map(
        (d) => html`<li><span><strong>${d.name}</strong><br><span class="muted">added ${date(d.createdAt)} · last used ${date(d.lastUsedAt)}</span></span>
<form method="post" action="/authenticator/devices/remove"><input type="hidden" name="device_id" value="${d.id}"><button type="submit" class="danger">Remove</button></form></li>`,
      )}</ul>`
    : html`<p id="device-list">No device is enrolled yet.</p>`
}
<form method="post" action="/authenticator/devices/enroll">
<button type="submit" id="add-device">Add a device</button>
</form>
<h2 id="recovery">Recovery codes</h2>
<p>You have <strong id="recovery-remaining">${model.recoveryCodesRemaining}</strong> unused recovery ${model.recoveryCodesRemaining === 1 ? 'code' : 'codes'}.</p>
<form method="post" action="/authenticator/recovery-codes">
<button type="submit" class="secondary">Create new recovery codes</button>
</form>
<p class="muted">Creating new codes makes the old ones stop working.</p></section>`;
}

function passkeysSection(passkeys: readonly PasskeyView[]): SafeHtml {
  return html`<section id="passkeys"><h2>Passkeys and security keys</h2>
<p class="muted">A passkey signs you in without a password, or replaces the code after your password.</p>
${
  passkeys.length
    ? html`<ul class="devices" id="passkey-list">${passkeys.map(
        (p) => html`<li><span><strong>${p.name}</strong><br><span class="muted">added ${date(p.createdAt)} · last used ${date(p.lastUsedAt)}</span></span>
<form method="post" action="${PASSKEY_PATHS.remove}"><input type="hidden" name="credential_id" value="${p.id}"><button type="submit" class="danger">Remove</button></form></li>`,
      )}</ul>`
    : html`<p id="passkey-list">No passkey is registered yet.</p>`
}
<form method="post" action="${PASSKEY_PATHS.register}" id="passkey-register" data-passkey="register" data-options-url="${PASSKEY_PATHS.registerOptions}" data-register-url="${PASSKEY_PATHS.register}">
<label for="passkey-name">Name of the new passkey</label>
<input id="passkey-name" name="name" maxlength="64" value="Passkey" required>
<button type="submit" id="add-passkey" data-passkey-start hidden>Add a passkey</button>
<p class="muted" role="status" data-passkey-status></p>
</form></section>`;
}

function sessionsSection(model: AccountPageModel): SafeHtml {
  const others = model.sessions.filter((s) => !s.current).length;
  return html`<section id="sessions"><h2>Active sessions</h2>
${errorFor(model, 'sessions')}
<ul class="devices" id="session-list">${model.sessions.map(
    (s) => html`<li${s.current ? raw(' data-current') : ''}><span><strong>${s.browser}</strong>${s.current ? html` <span class="current">(this browser)</span>` : ''}<br>
<span class="muted">signed in ${date(s.signedInAt)} · last used ${date(s.lastUsedAt)}${s.clients.length ? html` · ${s.clients.join(', ')}` : ''}</span></span></li>`,
  )}</ul>
<form method="post" action="/account/sessions/sign-out-others">
<button type="submit" class="danger" id="sign-out-others"${others === 0 ? raw(' disabled') : ''}>Sign out other sessions</button>
</form>
<p class="muted">Ends every other session and the app sign-ins it holds (their refresh tokens stop working). This browser stays signed in.</p></section>`;
}

function appsSection(model: AccountPageModel): SafeHtml {
  return html`<section id="apps"><h2>Connected apps</h2>
${errorFor(model, 'apps')}
<p class="muted">Applications you allowed to access your account. Revoking one ends its sign-ins and refresh tokens at once; it asks you again next time.</p>
${
  model.apps.length
    ? html`<ul class="devices" id="app-list">${model.apps.map(
        (a) => html`<li data-client-id="${a.clientId}"><span><strong>${a.name}</strong><br><span class="muted">${a.scopes.join(' ')}</span><br>
<span class="muted">allowed ${date(a.grantedAt)}${a.updatedAt !== a.grantedAt ? html` · last changed ${date(a.updatedAt)}` : ''}</span></span>
<form method="post" action="/account/apps/revoke"><input type="hidden" name="client_id" value="${a.clientId}"><button type="submit" class="danger" aria-label="Revoke ${a.name}">Revoke</button></form></li>`,
      )}</ul>`
    : html`<p id="app-list">No application has asked for access to your account.</p>`
}</section>`;
}

function linksSection(model: AccountPageModel): SafeHtml {
  const links = model.links ?? [];
  return html`<section id="links"><h2>Sign-in providers</h2>
${errorFor(model, 'links')}
<p class="muted">Accounts at other identity providers you sign in with. Removing one stops it from signing you in here.</p>
${
  links.length
    ? html`<ul class="devices" id="link-list">${links.map(
        (l) => html`<li data-provider="${l.provider}"><span><strong>${l.name}</strong><br>
<span class="muted">linked ${date(l.createdAt)} · last used ${date(l.lastUsedAt)}</span></span>
<form method="post" action="/account/links/remove"><input type="hidden" name="provider" value="${l.provider}"><button type="submit" class="danger" aria-label="Remove ${l.name}">Remove</button></form></li>`,
      )}</ul>`
    : html`<p id="link-list">No other identity provider is linked to your account.</p>`
}</section>`;
}

export function accountPage(model: AccountPageModel): string {
  return layout({
    title: 'Your account',
    scripts: PASSKEY_SCRIPTS,
    body: html`<div class="account">
<h1>Your account</h1>
<p class="muted">Signed in as <strong id="account-username">${model.profile.username}</strong>.</p>
${model.notice ? html`<p class="notice" role="status" id="notice">${model.notice}</p>` : ''}
${profileSection(model)}
${passwordSection(model)}
${totpSection(model)}
${devicesSection(model)}
${passkeysSection(model.passkeys)}
${preferredFactorSection(model.preferredFactor)}
${sessionsSection(model)}
${appsSection(model)}
${linksSection(model)}
</div>`,
  });
}

/** The page of a password-reset link: a new password, twice. */
export function passwordResetPage(model: { username: string; action: string; secondFactor?: ResetFactor; error?: { code: string; message: string } }): string {
  return layout({
    title: 'Choose a new password',
    scripts: resetScripts(model.secondFactor),
    body: html`<h1>Choose a new password</h1>
<p>For <strong id="reset-username">${model.username}</strong>. This link works once.</p>
${model.error ? html`<p class="error" role="alert" id="reset-error">${model.error.message}</p>
<p class="muted">Error code: <code>${model.error.code}</code></p>` : ''}
<form method="post" action="${model.action}"${resetFormAttributes(model.secondFactor)}>
<label for="reset-new-password">New password</label>
<input id="reset-new-password" name="new_password" type="password" autocomplete="new-password" minlength="12" maxlength="128" required>
<label for="reset-new-password-confirm">New password again</label>
<input id="reset-new-password-confirm" name="new_password_confirm" type="password" autocomplete="new-password" minlength="12" maxlength="128" required>
${resetFactorFields(model.secondFactor)}
<button type="submit" id="reset-password">Set the new password</button>
</form>
<p class="muted">At least 12 characters; any characters, spaces included. Common and breached passwords are refused. Every session of your account is signed out.</p>`,
  });
}

/** After a reset: the password is set, every session ended; sign in again. */
export function passwordResetDonePage(model: { signInUrl: string }): string {
  return layout({
    title: 'Password changed',
    body: html`<h1>Password changed</h1>
<p class="notice" role="status">Your new password is set and every session of your account was signed out.</p>
<p><a href="${model.signInUrl}" id="sign-in">Sign in with your new password</a></p>`,
  });
}
