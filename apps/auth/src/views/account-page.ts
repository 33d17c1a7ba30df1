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
import { ACCOUNT_CONFIRM_PATHS, ACCOUNT_SECTIONS, SECTION_PATHS, type AccountSection } from './account-paths.ts';
import { PASSKEY_PATHS } from './passkey-paths.ts';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { sayBrowserLabel } from './browser-label.ts';
import { layout } from './layout.ts';
import { passkeyStatus } from './passkey-status.ts';
import { PASSKEY_SCRIPTS } from './login-page.ts';
import { preferredFactorSection, type PreferredFactorView } from './preferred-factor-section.ts';
import { resetFactorFields, resetFormAttributes, resetScripts, type ResetFactor } from './reset-factor-fields.ts';

export type { AccountSection };

/** An instant as the account pages show it: relative to now, the absolute time as its title; or "never". */
function when(f: AccountFrame, ms: number | null | undefined): SafeHtml {
  const language = f.language ?? ENGLISH;
  if (ms === null || ms === undefined) return html`${language.t('account.never')}`;
  return f.now === undefined ? language.dateTime(ms) : language.relative(ms, f.now);
}

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
  /** The page's language (i18n/page-language.ts). */
  language?: PageLanguage | undefined;
  /** Now, by the app's clock: times are shown relative to it. */
  now?: number | undefined;
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
  /**
   * The sign-in that comes back to the passkeys: "Add a passkey" needs a fresh sign-in, and the
   * page script offers this link when the server refuses a stale one (reauth_required).
   */
  passkeyReauthUrl: string;
  /** The upstream identity providers the user signs in with. */
  links: LinkedProviderView[];
  /** The second factor offered first at sign-in (views/preferred-factor-section.ts). */
  preferredFactor?: PreferredFactorView | undefined;
  /** Second step of a TOTP re-enrollment: the new secret to scan and confirm. */
  totpEnrollment?: { secret: string; qrSvg: string } | undefined;
}

function message(m: AccountMessage | undefined, language: PageLanguage): SafeHtml | '' {
  if (!m) return '';
  if (m.kind === 'notice') return html`<p class="notice" role="status" id="notice" tabindex="-1">${m.text}</p>`;
  return html`<div class="error" role="alert" id="error" tabindex="-1"><p>${m.text}</p>${m.code ? html`<p class="muted">${language.t('message.errorCode')} <code>${m.code}</code></p>` : ''}</div>`;
}

function nav(section: AccountSection, language: PageLanguage): SafeHtml {
  return html`<nav class="account-nav" aria-label="${language.t('account.sections')}"><ul>${ACCOUNT_SECTIONS.map(
    (s) => html`<li><a href="${SECTION_PATHS[s]}" id="nav-${s}"${s === section ? raw(' aria-current="page"') : ''}>${language.t(`account.section.${s}`)}</a></li>`,
  )}</ul></nav>`;
}

function frame(f: AccountFrame, title: string, body: SafeHtml, scripts: string[] = []): string {
  const language = f.language ?? ENGLISH;
  const { t } = language;
  const yours = t('account.title');
  return layout({
    title: title === yours ? title : `${title} · ${yours}`,
    scripts,
    language,
    languageReturn: SECTION_PATHS[f.section],
    body: html`<div class="account">
<div class="account-bar">
${f.back ? html`<a href="${f.back.url}" id="back-to-app">${t('way.backTo', { app: f.back.name })}</a>` : ''}
<span class="muted">${t('account.signedInAs', { username: html`<strong id="account-username">${f.username}</strong>` })}</span>
<a href="${AUTH_ROUTES.logout}" id="sign-out">${t('account.signOut')}</a>
</div>
${nav(f.section, language)}
<h1>${title}</h1>
${message(f.message, language)}
${body}
</div>`,
  });
}

function profileSection(p: ProfileModel, language: PageLanguage): SafeHtml {
  const { t } = language;
  return html`<section id="profile" aria-label="${t('account.section.profile')}">
<dl class="profile">
<dt>${t('account.username')}</dt><dd id="profile-username">${p.username}</dd>
<dt>${t('account.name')}</dt><dd id="profile-name">${p.name}</dd>
<dt>${t('account.email')}</dt><dd id="profile-email">${p.email}</dd>
<dt>${t('account.groups')}</dt><dd id="profile-groups">${p.groups.length ? p.groups.join(', ') : t('account.none')}</dd>
</dl>
<p class="muted">${t('account.askAdmin')}</p></section>
<section id="email"><h2>${t('account.emailChange.heading')}</h2>
<form method="post" action="/account/email">
<label for="new-email">${t('account.emailChange.label')}</label>
<input id="new-email" name="email" type="email" autocomplete="email" maxlength="254" required aria-describedby="new-email-hint">
<button type="submit" class="secondary" id="change-email">${t('account.emailChange.submit')}</button>
</form>
<p class="muted" id="new-email-hint">${t('account.emailChange.hint')}</p></section>`;
}

function passwordSection(language: PageLanguage): SafeHtml {
  const { t } = language;
  return html`<section id="password"><h2>${t('account.changePassword')}</h2>
<form method="post" action="/account/password">
<label for="current-password">${t('account.currentPassword')}</label>
<input id="current-password" name="current_password" type="password" autocomplete="current-password" required>
<label for="new-password">${t('account.newPassword')}</label>
<input id="new-password" name="new_password" type="password" autocomplete="new-password" minlength="12" maxlength="128" required>
<label for="new-password-confirm">${t('account.newPasswordAgain')}</label>
<input id="new-password-confirm" name="new_password_confirm" type="password" autocomplete="new-password" minlength="12" maxlength="128" required>
<button type="submit" id="change-password">${t('account.changePassword')}</button>
</form>
<p class="muted">${t('account.passwordRules')} ${t('account.othersSignedOut')}</p></section>`;
}

function totpSection(model: SecurityModel, language: PageLanguage): SafeHtml {
  const { t } = language;
  const enrollment = model.totpEnrollment;
  if (enrollment) {
    return html`<section id="totp"><h2>${t('account.newTotpTitle')}</h2>
<p>${t('account.newTotpScan')}</p>
<figure class="qr" aria-label="${t('mfa.qrLabel')}">${raw(enrollment.qrSvg)}</figure>
<p class="muted">${t('account.cantScan')}</p>
<p><code id="new-totp-secret">${enrollment.secret}</code></p>
<form method="post" action="/account/totp/confirm" autocomplete="off">
<label for="new-totp-code">${t('account.newTotpCode')}</label>
<input id="new-totp-code" name="code" inputmode="numeric" maxlength="9" autocomplete="one-time-code" required>
<button type="submit" id="confirm-totp">${t('account.useThisApp')}</button>
</form>
<form method="post" action="/account/totp/cancel"><button type="submit" class="secondary" id="cancel-totp">${t('account.cancelTotp')}</button></form>
<p class="muted">${t('account.totpKeyStays')}</p></section>`;
  }
  const proof = model.totpEnrolled
    ? html`<label for="current-totp-code">${t('account.currentTotpCode')}</label>
<input id="current-totp-code" name="code" maxlength="64" autocomplete="one-time-code" spellcheck="false" required>`
    : html`<p class="muted">${t('account.noTotpYet')}</p>
<label for="totp-current-password">${t('account.currentPassword')}</label>
<input id="totp-current-password" name="current_password" type="password" autocomplete="current-password" required>`;
  return html`<section id="totp"><h2>${t('account.totpTitle')}</h2>
<p>${model.totpEnrolled ? t('account.totpSetUp') : t('account.totpNotSetUp')}</p>
<form method="post" action="/account/totp" autocomplete="off">
${proof}
<button type="submit" class="secondary" id="start-totp">${model.totpEnrolled ? t('account.newTotpButton') : t('account.totpButton')}</button>
</form></section>`;
}

/** A button that opens the confirmation page of a destructive action (GET, no script). */
function confirmButton(path: string, fields: Record<string, string>, label: string, ariaLabel?: string): SafeHtml {
  return html`<form method="get" action="${path}">${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}<button type="submit" class="danger"${ariaLabel ? html` aria-label="${ariaLabel}"` : ''}>${label}</button></form>`;
}

function devicesSection(model: SecurityModel, f: AccountFrame, language: PageLanguage): SafeHtml {
  const { t } = language;
  return html`<section id="devices"><h2>${t('account.devicesTitle')}</h2>
<p class="muted">${t('account.devicesIntro')}</p>
${
  model.devices.length
    ? html`<ul class="devices" id="device-list">${model.devices.map(
        (d) => html`<li><span><strong>${d.name}</strong><br><span class="muted">${t('account.added', { at: when(f, d.createdAt) })} · ${t('account.lastUsed', { at: when(f, d.lastUsedAt) })}</span></span>
${confirmButton(ACCOUNT_CONFIRM_PATHS.removeDevice, { device_id: d.id }, t('account.remove'), t('account.removeNamed', { name: d.name }))}</li>`,
      )}</ul>`
    : html`<p id="device-list">${t('account.noDevice')}</p>`
}
<form method="post" action="/authenticator/devices/enroll">
<button type="submit" id="add-device">${t('devices.addTitle')}</button>
</form>
<h2 id="recovery">${t('devices.codesTitle')}</h2>
<p>${t('account.codesLeft', { count: html`<strong id="recovery-remaining">${model.recoveryCodesRemaining}</strong>`, n: model.recoveryCodesRemaining })}</p>
<form method="get" action="${ACCOUNT_CONFIRM_PATHS.recoveryCodes}">
<button type="submit" class="secondary" id="new-recovery-codes">${t('account.newCodes')}</button>
</form>
<p class="muted">${t('account.newCodesKill')}</p></section>`;
}

function passkeysSection(passkeys: readonly PasskeyView[], reauthUrl: string, f: AccountFrame, language: PageLanguage): SafeHtml {
  const { t } = language;
  return html`<section id="passkeys"><h2>${t('account.passkeysTitle')}</h2>
<p class="muted">${t('account.passkeysIntro')}</p>
${
  passkeys.length
    ? html`<ul class="devices" id="passkey-list">${passkeys.map(
        (p) => html`<li><span><strong>${p.name}</strong><br><span class="muted">${t('account.added', { at: when(f, p.createdAt) })} · ${t('account.lastUsed', { at: when(f, p.lastUsedAt) })}</span></span>
${confirmButton(ACCOUNT_CONFIRM_PATHS.removePasskey, { credential_id: p.id }, t('account.remove'), t('account.removeNamed', { name: p.name }))}</li>`,
      )}</ul>`
    : html`<p id="passkey-list">${t('account.noPasskey')}</p>`
}
<form method="post" action="${PASSKEY_PATHS.register}" id="passkey-register" data-passkey="register" data-options-url="${PASSKEY_PATHS.registerOptions}" data-register-url="${PASSKEY_PATHS.register}">
<label for="passkey-name">${t('account.passkeyName')}</label>
<input id="passkey-name" name="name" maxlength="64" value="Passkey" required>
<button type="submit" id="add-passkey" data-passkey-start hidden>${t('account.addPasskey')}</button>
${passkeyStatus(language)}
<p id="passkey-reauth" data-passkey-reauth hidden>${t('account.passkeyReauth')} <a href="${reauthUrl}" id="passkey-reauth-link">${t('account.passkeyReauthLink')}</a></p>
</form></section>`;
}

function linksSection(links: readonly LinkedProviderView[], f: AccountFrame, language: PageLanguage): SafeHtml {
  const { t } = language;
  return html`<section id="links"><h2>${t('account.linksTitle')}</h2>
<p class="muted">${t('account.linksIntro')}</p>
${
  links.length
    ? html`<ul class="devices" id="link-list">${links.map(
        (l) => html`<li data-provider="${l.provider}"><span><strong>${l.name}</strong><br>
<span class="muted">${t('account.linked', { at: when(f, l.createdAt) })} · ${t('account.lastUsed', { at: when(f, l.lastUsedAt) })}</span></span>
${confirmButton(ACCOUNT_CONFIRM_PATHS.removeLink, { provider: l.provider }, t('account.remove'), t('account.removeNamed', { name: l.name }))}</li>`,
      )}</ul>`
    : html`<p id="link-list">${t('account.noLink')}</p>`
}</section>`;
}

function sessionLine(s: AccountSessionView, f: AccountFrame, language: PageLanguage): SafeHtml {
  const { t } = language;
  const place = s.ip ? html`<br><span class="muted">${t('account.from', { ip: html`<span class="session-ip">${s.ip}</span>` })}${s.network && s.network !== s.ip ? t('account.network', { network: s.network }) : ''}</span>` : '';
  const lastUsed = s.lastUsedAt === undefined ? t('account.never') : language.dateTime(s.lastUsedAt).value.replace(/<[^>]*>/g, '');
  const browser = sayBrowserLabel(s.browser, language);
  const end =
    !s.current && s.uid
      ? html`<form method="get" action="${ACCOUNT_CONFIRM_PATHS.endSession}"><input type="hidden" name="session" value="${s.uid}"><button type="submit" class="danger" aria-label="${t('account.signOutSessionLabel', { browser, at: lastUsed })}">${t('account.signOut')}</button></form>`
      : '';
  return html`<li${s.current ? raw(' data-current') : ''}><span><strong>${browser}</strong>${s.current ? html` <span class="current">${t('account.thisSession')}</span>` : ''}${place}<br>
<span class="muted">${t('account.signedIn', { at: when(f, s.signedInAt) })} · ${t('account.lastUsed', { at: when(f, s.lastUsedAt) })}${s.clients.length ? html` · ${s.clients.join(', ')}` : ''}</span></span>${end}</li>`;
}

function sessionsSection(sessions: readonly AccountSessionView[], f: AccountFrame, language: PageLanguage): SafeHtml {
  const { t } = language;
  const others = sessions.filter((s) => !s.current).length;
  return html`<section id="sessions"><h2>${t('account.sessionsTitle')}</h2>
<p class="muted">${t('account.sessionsIntro')}</p>
<ul class="devices" id="session-list">${sessions.map((s) => sessionLine(s, f, language))}</ul>
<form method="get" action="${ACCOUNT_CONFIRM_PATHS.signOutOthers}">
<button type="submit" class="danger" id="sign-out-others"${others === 0 ? raw(' disabled') : ''}>${t('account.signOutOthers')}</button>
</form>
<p class="muted">${t('account.signOutOthersIntro')}</p></section>`;
}

function appsSection(apps: readonly ConnectedAppView[], f: AccountFrame, language: PageLanguage): SafeHtml {
  const { t } = language;
  return html`<section id="apps"><h2>${t('account.appsTitle')}</h2>
<p class="muted">${t('account.appsIntro')}</p>
${
  apps.length
    ? html`<ul class="devices" id="app-list">${apps.map(
        (a) => html`<li data-client-id="${a.clientId}"><span><strong>${a.name}</strong><br><span class="muted">${a.scopes.join(' ')}</span><br>
<span class="muted">${t('account.allowed', { at: when(f, a.grantedAt) })}${a.updatedAt !== a.grantedAt ? html` · ${t('account.changed', { at: when(f, a.updatedAt) })}` : ''}</span></span>
${confirmButton(ACCOUNT_CONFIRM_PATHS.revokeApp, { client_id: a.clientId }, t('account.revoke'), t('account.revokeNamed', { name: a.name }))}</li>`,
      )}</ul>`
    : html`<p id="app-list">${t('account.noApp')}</p>`
}</section>`;
}

export function profilePage(f: AccountFrame, profile: ProfileModel): string {
  const language = f.language ?? ENGLISH;
  return frame(f, language.t('account.title'), profileSection(profile, language));
}

export function securityPage(f: AccountFrame, model: SecurityModel): string {
  const language = f.language ?? ENGLISH;
  return frame(f, language.t('account.section.security'), html`${passwordSection(language)}
${totpSection(model, language)}
${devicesSection(model, f, language)}
${passkeysSection(model.passkeys, model.passkeyReauthUrl, f, language)}
${preferredFactorSection(model.preferredFactor, language)}
${linksSection(model.links, f, language)}`, PASSKEY_SCRIPTS);
}

export function sessionsPage(f: AccountFrame, sessions: readonly AccountSessionView[]): string {
  const language = f.language ?? ENGLISH;
  return frame(f, language.t('account.section.sessions'), sessionsSection(sessions, f, language));
}

export function appsPage(f: AccountFrame, apps: readonly ConnectedAppView[]): string {
  const language = f.language ?? ENGLISH;
  return frame(f, language.t('account.section.apps'), appsSection(apps, f, language));
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
  return frame(f, model.title, html`<section class="confirm" aria-label="${(f.language ?? ENGLISH).t('account.confirmSection')}">
${model.subject ? html`<p><strong id="confirm-subject">${model.subject}</strong></p>` : ''}
<p id="confirm-consequence">${model.consequence}</p>
<form method="post" action="${model.action}">
${Object.entries(model.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit" class="danger" id="confirm">${model.confirmLabel}</button>
</form>
<p><a href="${model.cancelHref}" id="cancel">${(f.language ?? ENGLISH).t('account.cancel')}</a></p>
</section>`);
}

/** The page of a password-reset link: a new password, twice. */
export function passwordResetPage(model: { username: string; action: string; secondFactor?: ResetFactor; error?: { code: string; message: string }; language?: PageLanguage }): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('reset.title'),
    scripts: resetScripts(model.secondFactor),
    language,
    languageReturn: model.action,
    body: html`<h1>${t('reset.title')}</h1>
<p>${t('reset.for', { username: html`<strong id="reset-username">${model.username}</strong>` })}</p>
${model.error ? html`<p class="error" role="alert" id="reset-error">${model.error.message}</p>
<p class="muted">${t('message.errorCode')} <code>${model.error.code}</code></p>` : ''}
<form method="post" action="${model.action}"${resetFormAttributes(model.secondFactor)}>
<label for="reset-new-password">${t('account.newPassword')}</label>
<input id="reset-new-password" name="new_password" type="password" autocomplete="new-password" minlength="12" maxlength="128" required>
<label for="reset-new-password-confirm">${t('account.newPasswordAgain')}</label>
<input id="reset-new-password-confirm" name="new_password_confirm" type="password" autocomplete="new-password" minlength="12" maxlength="128" required>
${resetFactorFields(model.secondFactor, language)}
<button type="submit" id="reset-password">${t('reset.set')}</button>
</form>
<p class="muted">${t('account.passwordRules')} ${t('reset.allSignedOut')}</p>`,
  });
}

/** After a reset: the password is set, every session ended; sign in again. */
export function passwordResetDonePage(model: { signInUrl: string; language?: PageLanguage }): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('reset.doneTitle'),
    language,
    body: html`<h1>${t('reset.doneTitle')}</h1>
<p class="notice" role="status">${t('reset.done')}</p>
<p><a href="${model.signInUrl}" id="sign-in">${t('reset.signIn')}</a></p>`,
  });
}
