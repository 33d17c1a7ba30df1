/**
 * The self-service account pages: one page per section (Profile /account, Security
 * /account/security, Sessions /account/sessions, Apps /account/apps) under one frame with the
 * section navigation, the way back to the app the user came from and a sign-out. The message of
 * the last action (a notice, role=status, or an error, role=alert) is the first thing under the
 * heading, where the page opens. Every form posts to this origin and works without script; only
 * adding a passkey needs the page script (WebAuthn). Destructive actions link to a confirmation
 * page (GET) whose Confirm button posts.
 */
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { html, raw, type SafeHtml } from '@gatehouse/html';
import type { Device } from '../devices/device-store.ts';
import { ACCOUNT_CONFIRM_PATHS, ACCOUNT_SECTIONS, SECTION_LABELS, SECTION_PATHS, type AccountSection } from './account-paths.ts';
import { PASSKEY_PATHS } from './passkey-paths.ts';
import { layout } from './layout.ts';
import { PASSKEY_SCRIPTS } from './login-page.ts';
import { preferredFactorSection, type PreferredFactorView } from './preferred-factor-section.ts';
import { resetFactorFields, resetFormAttributes, resetScripts, type ResetFactor } from './reset-factor-fields.ts';

export type { AccountSection };

const date = (ms: number | null | undefined): string => (ms === null || ms === undefined ? 'never' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC');

/** An upstream identity provider linked to the account (account/linked-providers.ts). */
export interface LinkedProviderView {
  provider: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export interface AccountSessionView {
  /** The session's stable uid: the "Sign out this session" form names it. */
  uid: string | undefined;
  browser: string;
  /** The address the session was last used from, as seen through the configured proxy trust. */
  ip: string | undefined;
  /** The coarse network of that address (a /24 or a /48). */
  network: string | undefined;
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

/** The message at the top of a section page. */
export interface AccountMessage {
  kind: 'notice' | 'error';
  text: string;
  code?: string;
}

/** What every account page shows around its section. */
export interface AccountFrame {
  section: AccountSection;
  username: string;
  message?: AccountMessage | undefined;
  /** "Back to <name>": the app the user came from (account/return-target.ts). */
  back?: { name: string; url: string } | undefined;
}

export interface ProfileModel {
  username: string;
  email: string;
  name: string;
  groups: string[];
}

export interface SecurityModel {
  totpEnrolled: boolean;
  devices: Device[];
  recoveryCodesRemaining: number;
  passkeys: PasskeyView[];
  /** The upstream identity providers the user signs in with. */
  links: LinkedProviderView[];
  /** The second factor offered first at sign-in (views/preferred-factor-section.ts). */
  preferredFactor?: PreferredFactorView | undefined;
  /** Second step of a TOTP re-enrollment: the new secret to scan and confirm. */
  totpEnrollment?: { secret: string; qrSvg: string } | undefined;
}

function message(m: AccountMessage | undefined): SafeHtml | '' {
  if (!m) return '';
  if (m.kind === 'notice') return html`<p class="notice" role="status" id="notice" tabindex="-1">${m.text}</p>`;
  return html`<div class="error" role="alert" id="error" tabindex="-1"><p>${m.text}</p>${m.code ? html`<p class="muted">Error code: <code>${m.code}</code></p>` : ''}</div>`;
}

function nav(section: AccountSection): SafeHtml {
  return html`<nav class="account-nav" aria-label="Account sections"><ul>${ACCOUNT_SECTIONS.map(
    (s) => html`<li><a href="${SECTION_PATHS[s]}" id="nav-${s}"${s === section ? raw(' aria-current="page"') : ''}>${SECTION_LABELS[s]}</a></li>`,
  )}</ul></nav>`;
}

function frame(f: AccountFrame, title: string, body: SafeHtml, scripts: string[] = []): string {
  return layout({
    title: title === 'Your account' ? title : `${title} · Your account`,
    scripts,
    body: html`<div class="account">
<div class="account-bar">
${f.back ? html`<a href="${f.back.url}" id="back-to-app">Back to ${f.back.name}</a>` : ''}
<span class="muted">Signed in as <strong id="account-username">${f.username}</strong></span>
<a href="${AUTH_ROUTES.logout}" id="sign-out">Sign out</a>
</div>
${nav(f.section)}
<h1>${title}</h1>
${message(f.message)}
${body}
</div>`,
  });
}

function profileSection(p: ProfileModel): SafeHtml {
  return html`<section id="profile" aria-label="Profile">
<dl class="profile">
<dt>Username</dt><dd id="profile-username">${p.username}</dd>
<dt>Name</dt><dd id="profile-name">${p.name}</dd>
<dt>Email</dt><dd id="profile-email">${p.email}</dd>
<dt>Groups</dt><dd id="profile-groups">${p.groups.length ? p.groups.join(', ') : 'none'}</dd>
</dl>
<p class="muted">Ask your administrator to change your name or groups.</p></section>`;
}

function passwordSection(): SafeHtml {
  return html`<section id="password"><h2>Change password</h2>
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

function totpSection(model: SecurityModel): SafeHtml {
  const enrollment = model.totpEnrollment;
  if (enrollment) {
    return html`<section id="totp"><h2>Set up your new authenticator app</h2>
<p>Scan this QR code with your authenticator app, then enter the 6-digit code it shows. Your current app keeps working until you confirm.</p>
<figure class="qr" aria-label="QR code for your authenticator app">${raw(enrollment.qrSvg)}</figure>
<p class="muted">Can't scan it? Enter this key by hand:</p>
<p><code id="new-totp-secret">${enrollment.secret}</code></p>
<form method="post" action="/account/totp/confirm" autocomplete="off">
<label for="new-totp-code">Code from the new app</label>
<input id="new-totp-code" name="code" inputmode="numeric" maxlength="9" autocomplete="one-time-code" required>
<button type="submit" id="confirm-totp">Use this authenticator app</button>
</form>
<form method="post" action="/account/totp/cancel"><button type="submit" class="secondary" id="cancel-totp">Cancel: keep my current app</button></form>
<p class="muted">This key stays the same until you confirm or cancel, so a reload or a second look shows the one you scanned.</p></section>`;
  }
  const proof = model.totpEnrolled
    ? html`<label for="current-totp-code">Code from your current app (or a recovery code)</label>
<input id="current-totp-code" name="code" maxlength="64" autocomplete="one-time-code" spellcheck="false" required>`
    : html`<p class="muted">No authenticator app is set up yet; confirm with your password.</p>
<label for="totp-current-password">Current password</label>
<input id="totp-current-password" name="current_password" type="password" autocomplete="current-password" required>`;
  return html`<section id="totp"><h2>Authenticator app (TOTP)</h2>
<p>${model.totpEnrolled ? 'An authenticator app is set up. To move to a new phone or app, prove the current one first.' : 'Set up an authenticator app for two-step verification.'}</p>
<form method="post" action="/account/totp" autocomplete="off">
${proof}
<button type="submit" class="secondary" id="start-totp">${model.totpEnrolled ? 'Set up a new authenticator app' : 'Set up an authenticator app'}</button>
</form></section>`;
}

/** A button that opens the confirmation page of a destructive action (GET, no script). */
function confirmButton(path: string, fields: Record<string, string>, label: string, ariaLabel?: string): SafeHtml {
  return html`<form method="get" action="${path}">${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}<button type="submit" class="danger"${ariaLabel ? html` aria-label="${ariaLabel}"` : ''}>${label}</button></form>`;
}

function devicesSection(model: SecurityModel): SafeHtml {
  return html`<section id="devices"><h2>Authenticator devices</h2>
<p class="muted">A device enrolled here can approve your sign-ins with a push.</p>
${
  model.devices.length
    ? html`<ul class="devices" id="device-list">${model.devices.map(
        (d) => html`<li><span><strong>${d.name}</strong><br><span class="muted">added ${date(d.createdAt)} · last used ${date(d.lastUsedAt)}</span></span>
${confirmButton(ACCOUNT_CONFIRM_PATHS.removeDevice, { device_id: d.id }, 'Remove', `Remove ${d.name}`)}</li>`,
      )}</ul>`
    : html`<p id="device-list">No device is enrolled yet.</p>`
}
<form method="post" action="/authenticator/devices/enroll">
<button type="submit" id="add-device">Add a device</button>
</form>
<h2 id="recovery">Recovery codes</h2>
<p>You have <strong id="recovery-remaining">${model.recoveryCodesRemaining}</strong> unused ${model.recoveryCodesRemaining === 1 ? 'recovery code' : 'recovery codes'}.</p>
<form method="get" action="${ACCOUNT_CONFIRM_PATHS.recoveryCodes}">
<button type="submit" class="secondary" id="new-recovery-codes">Create new recovery codes</button>
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
${confirmButton(ACCOUNT_CONFIRM_PATHS.removePasskey, { credential_id: p.id }, 'Remove', `Remove ${p.name}`)}</li>`,
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

function linksSection(links: readonly LinkedProviderView[]): SafeHtml {
  return html`<section id="links"><h2>Sign-in providers</h2>
<p class="muted">Accounts at other identity providers you sign in with. Removing one stops it from signing you in here.</p>
${
  links.length
    ? html`<ul class="devices" id="link-list">${links.map(
        (l) => html`<li data-provider="${l.provider}"><span><strong>${l.name}</strong><br>
<span class="muted">linked ${date(l.createdAt)} · last used ${date(l.lastUsedAt)}</span></span>
${confirmButton(ACCOUNT_CONFIRM_PATHS.removeLink, { provider: l.provider }, 'Remove', `Remove ${l.name}`)}</li>`,
      )}</ul>`
    : html`<p id="link-list">No other identity provider is linked to your account.</p>`
}</section>`;
}

function sessionLine(s: AccountSessionView): SafeHtml {
  const place = s.ip ? html`<br><span class="muted">from <span class="session-ip">${s.ip}</span>${s.network && s.network !== s.ip ? html` (network ${s.network})` : ''}</span>` : '';
  const end =
    !s.current && s.uid
      ? html`<form method="get" action="${ACCOUNT_CONFIRM_PATHS.endSession}"><input type="hidden" name="session" value="${s.uid}"><button type="submit" class="danger" aria-label="Sign out ${s.browser}, last used ${date(s.lastUsedAt)}">Sign out</button></form>`
      : '';
  return html`<li${s.current ? raw(' data-current') : ''}><span><strong>${s.browser}</strong>${s.current ? html` <span class="current">(this session)</span>` : ''}${place}<br>
<span class="muted">signed in ${date(s.signedInAt)} · last used ${date(s.lastUsedAt)}${s.clients.length ? html` · ${s.clients.join(', ')}` : ''}</span></span>${end}</li>`;
}

function sessionsSection(sessions: readonly AccountSessionView[]): SafeHtml {
  const others = sessions.filter((s) => !s.current).length;
  return html`<section id="sessions"><h2>Active sessions</h2>
<p class="muted">The browsers signed in to your account. The place is the address each one last used, and its network.</p>
<ul class="devices" id="session-list">${sessions.map(sessionLine)}</ul>
<form method="get" action="${ACCOUNT_CONFIRM_PATHS.signOutOthers}">
<button type="submit" class="danger" id="sign-out-others"${others === 0 ? raw(' disabled') : ''}>Sign out all other sessions</button>
</form>
<p class="muted">Ends every other session and the app sign-ins it holds (their refresh tokens stop working). This browser stays signed in.</p></section>`;
}

function appsSection(apps: readonly ConnectedAppView[]): SafeHtml {
  return html`<section id="apps"><h2>Connected apps</h2>
<p class="muted">Applications you allowed to access your account. Revoking one ends its sign-ins and refresh tokens at once; it asks you again next time.</p>
${
  apps.length
    ? html`<ul class="devices" id="app-list">${apps.map(
        (a) => html`<li data-client-id="${a.clientId}"><span><strong>${a.name}</strong><br><span class="muted">${a.scopes.join(' ')}</span><br>
<span class="muted">allowed ${date(a.grantedAt)}${a.updatedAt !== a.grantedAt ? html` · last changed ${date(a.updatedAt)}` : ''}</span></span>
<form method="post" action="/account/apps/revoke"><input type="hidden" name="client_id" value="${a.clientId}"><button type="submit" class="danger" aria-label="Revoke ${a.name}">Revoke</button></form></li>`,
      )}</ul>`
    : html`<p id="app-list">No application has asked for access to your account.</p>`
}</section>`;
}

export function profilePage(f: AccountFrame, profile: ProfileModel): string {
  return frame(f, 'Your account', profileSection(profile));
}

export function securityPage(f: AccountFrame, model: SecurityModel): string {
  return frame(f, 'Security', html`${passwordSection()}
${totpSection(model)}
${devicesSection(model)}
${passkeysSection(model.passkeys)}
${preferredFactorSection(model.preferredFactor)}
${linksSection(model.links)}`, PASSKEY_SCRIPTS);
}

export function sessionsPage(f: AccountFrame, sessions: readonly AccountSessionView[]): string {
  return frame(f, 'Sessions', sessionsSection(sessions));
}

export function appsPage(f: AccountFrame, apps: readonly ConnectedAppView[]): string {
  return frame(f, 'Apps', appsSection(apps));
}

/** What a confirmation page says and posts. */
export interface ConfirmModel {
  title: string;
  /** What will happen, in one or two sentences. */
  consequence: string;
  /** The thing concerned, shown in bold (a device name, a browser). */
  subject?: string;
  action: string;
  fields: Record<string, string>;
  confirmLabel: string;
  cancelHref: string;
}

export function confirmPage(f: AccountFrame, model: ConfirmModel): string {
  return frame(f, model.title, html`<section class="confirm" aria-label="Confirm">
${model.subject ? html`<p><strong id="confirm-subject">${model.subject}</strong></p>` : ''}
<p id="confirm-consequence">${model.consequence}</p>
<form method="post" action="${model.action}">
${Object.entries(model.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit" class="danger" id="confirm">${model.confirmLabel}</button>
</form>
<p><a href="${model.cancelHref}" id="cancel">Cancel</a></p>
</section>`);
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
