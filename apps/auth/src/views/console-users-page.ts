/**
 * The Users section of the admin console: the list (search, pages), a user's page (profile,
 * status, lockout, second factors, sessions, devices, passkeys, apps and grants, a link to their
 * audit events) and the forms to create and edit a user. Write controls are rendered only for
 * admins (`writeForm`, views/console-layout.ts); every destructive one leads to a confirmation page.
 */
import { html, raw, type SafeHtml } from '@gatehouse/html';
import type { PageLanguage } from '../i18n/page-language.ts';
import { csrfField, errorCodeLine, writeForm, type ConsoleViewer } from './console-layout.ts';
import { consoleTime } from './console-time.ts';

export interface UserRowView {
  id: string;
  username: string;
  name: string;
  email: string;
  groups: readonly string[];
  disabled: boolean;
}

export interface UserListModel {
  viewer: ConsoleViewer;
  search: string;
  users: readonly UserRowView[];
  /** The link to the next page, or null on the last. */
  nextHref: string | null;
  /** The link back to the first page, when this is not it. */
  firstHref: string | null;
  userHref(id: string): string;
}

const groupsText = (language: PageLanguage, groups: readonly string[]) => (groups.length ? groups.join(', ') : language.t('console.none'));

const statusBadge = (language: PageLanguage, disabled: boolean): SafeHtml =>
  disabled ? html`<span class="badge warn">${language.t('console.users.disabled')}</span>` : html`<span class="badge ok">${language.t('console.users.active')}</span>`;

export function userListBody(model: UserListModel): SafeHtml {
  const { language } = model.viewer;
  const { t } = language;
  return html`<h1>${t('console.nav.users')}</h1>
<form method="get" action="/admin/users" class="search" role="search">
<label for="user-search">${t('console.users.searchLabel')}</label>
<input id="user-search" name="q" value="${model.search}" maxlength="128" autocomplete="off" spellcheck="false">
<button type="submit" id="user-search-submit">${t('console.users.search')}</button>
</form>
${model.viewer.canWrite ? html`<p><a class="button" href="/admin/users/new" id="new-user">${t('console.users.create')}</a></p>` : ''}
${
  model.users.length
    ? html`<div class="table-wrap" role="region" aria-label="${t('console.nav.users')}" tabindex="0"><table id="user-table"><caption class="visually-hidden">${model.search ? t('console.users.matching', { search: model.search }) : t('console.nav.users')}</caption>
<thead><tr><th scope="col">${t('console.users.username')}</th><th scope="col">${t('console.users.name')}</th><th scope="col">${t('console.users.email')}</th><th scope="col">${t('console.users.groups')}</th><th scope="col">${t('console.users.status')}</th></tr></thead>
<tbody>${model.users.map(
        (u) => html`<tr><td><a href="${model.userHref(u.id)}">${u.username}</a></td><td>${u.name}</td><td>${u.email}</td><td>${groupsText(language, u.groups)}</td><td>${statusBadge(language, u.disabled)}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p id="user-table">${model.search ? t('console.users.noMatch') : t('console.users.noUsers')}</p>`
}
<nav class="pager" aria-label="${t('console.users.pages')}">
${model.firstHref ? html`<a href="${model.firstHref}" id="first-page">${t('console.users.firstPage')}</a>` : ''}
${model.nextHref ? html`<a href="${model.nextHref}" id="next-page">${t('console.users.nextPage')}</a>` : ''}
</nav>`;
}

export interface UserSessionView {
  browser: string;
  ip: string | null;
  signedInAt: number | undefined;
  lastUsedAt: number | undefined;
  clients: readonly string[];
}

export interface UserGrantView {
  id: string;
  clientId: string;
  clientName: string;
  clientHref: string | null;
  scopes: readonly string[];
  createdAt: number | undefined;
}

export interface UserDetailModel {
  viewer: ConsoleViewer;
  user: UserRowView & { createdAt: number; disabledAt: number | null };
  lockedUntil: number | null;
  secondFactors: { totp: boolean; devices: number; passkeys: number; recoveryCodesLeft: number };
  sessions: readonly UserSessionView[];
  devices: readonly { name: string; createdAt: number; lastUsedAt: number | null }[];
  passkeys: readonly { name: string; createdAt: number; lastUsedAt: number | null }[];
  grants: readonly UserGrantView[];
  /** The apps the user allowed on the consent page (first-party apps ask no consent). */
  consents: readonly { clientName: string; clientHref: string | null; scopes: readonly string[]; grantedAt: number }[];
  auditHref: string;
  /** The base of this user's forms: /admin/users/<id>. */
  base: string;
}

function statusSection(model: UserDetailModel): SafeHtml {
  const { user, viewer, base } = model;
  const { language } = viewer;
  const { t } = language;
  return html`<section id="status" aria-labelledby="status-heading"><h2 id="status-heading">${t('console.users.status')}</h2>
<dl class="profile">
<dt>${t('console.users.account')}</dt><dd id="user-status">${user.disabledAt !== null ? t('console.users.disabledSince', { badge: statusBadge(language, true), at: consoleTime(language, user.disabledAt) }) : statusBadge(language, false)}</dd>
<dt>${t('console.users.lockout')}</dt><dd id="user-lockout">${model.lockedUntil !== null ? t('console.users.lockedUntil', { badge: html`<span class="badge warn">${t('console.users.lockedOut')}</span>`, at: consoleTime(language, model.lockedUntil) }) : t('console.users.notLockedOut')}</dd>
</dl>
<div class="actions">
${user.disabledAt !== null ? writeForm(viewer, { action: `${base}/enable`, label: t('console.users.enable'), id: 'enable-user' }) : writeForm(viewer, { action: `${base}/disable`, label: t('console.users.disableStep'), id: 'disable-user', danger: true, method: 'get' })}
${writeForm(viewer, { action: `${base}/unlock`, label: t('console.users.unlock'), id: 'unlock-user' })}
${user.disabledAt === null ? writeForm(viewer, { action: `${base}/reset-link`, label: t('console.users.createResetLink'), id: 'reset-link' }) : ''}
${writeForm(viewer, { action: `${base}/remove`, label: t('console.users.removeStep'), id: 'remove-user', danger: true, method: 'get' })}
</div>
<p class="muted">${t('console.users.unlockHint')}</p></section>`;
}

function factorsSection(model: UserDetailModel): SafeHtml {
  const f = model.secondFactors;
  const { language } = model.viewer;
  const { t } = language;
  const used = (item: { createdAt: number; lastUsedAt: number | null }) => t('console.users.addedLastUsed', { added: consoleTime(language, item.createdAt), used: consoleTime(language, item.lastUsedAt) });
  return html`<section id="factors" aria-labelledby="factors-heading"><h2 id="factors-heading">${t('console.users.secondFactors')}</h2>
<dl class="profile">
<dt>${t('console.users.totp')}</dt><dd id="factor-totp">${f.totp ? t('console.users.setUp') : t('console.users.notSetUp')}</dd>
<dt>${t('console.users.recoveryLeft')}</dt><dd id="factor-recovery">${String(f.recoveryCodesLeft)}</dd>
</dl>
<h3>${t('console.users.devices', { n: f.devices })}</h3>
${model.devices.length ? html`<ul class="rows" id="device-list">${model.devices.map((d) => html`<li><strong>${d.name}</strong> <span class="muted">${used(d)}</span></li>`)}</ul>` : html`<p id="device-list">${t('console.users.noDevice')}</p>`}
<h3>${t('console.users.passkeys', { n: f.passkeys })}</h3>
${model.passkeys.length ? html`<ul class="rows" id="passkey-list">${model.passkeys.map((p) => html`<li><strong>${p.name}</strong> <span class="muted">${used(p)}</span></li>`)}</ul>` : html`<p id="passkey-list">${t('console.users.noPasskey')}</p>`}
${writeForm(model.viewer, { action: `${model.base}/second-factors/reset`, label: t('console.users.resetFactorsStep'), id: 'reset-factors', danger: true, method: 'get' })}</section>`;
}

function sessionsSection(model: UserDetailModel): SafeHtml {
  const { language } = model.viewer;
  const { t } = language;
  return html`<section id="sessions" aria-labelledby="sessions-heading"><h2 id="sessions-heading">${t('console.users.sessions')}</h2>
${
  model.sessions.length
    ? html`<ul class="rows" id="session-list">${model.sessions.map(
        (s) =>
          html`<li><strong>${s.browser}</strong>${s.ip ? html` <span class="muted">${t('console.users.from', { ip: s.ip })}</span>` : ''}<br><span class="muted">${t('console.users.signedInLastUsed', { at: consoleTime(language, s.signedInAt), used: consoleTime(language, s.lastUsedAt) })}${s.clients.length ? html` · ${s.clients.join(', ')}` : ''}</span></li>`,
      )}</ul>`
    : html`<p id="session-list">${t('console.users.noSession')}</p>`
}
${model.sessions.length ? writeForm(model.viewer, { action: `${model.base}/sign-out`, label: t('console.users.signOutStep'), id: 'sign-out-everywhere', danger: true, method: 'get' }) : ''}</section>`;
}

function grantsSection(model: UserDetailModel): SafeHtml {
  const { language } = model.viewer;
  const { t } = language;
  return html`<section id="grants" aria-labelledby="grants-heading"><h2 id="grants-heading">${t('console.users.grants')}</h2>
${
  model.grants.length
    ? html`<ul class="rows" id="grant-list">${model.grants.map(
        (g) => html`<li data-client-id="${g.clientId}"><strong>${g.clientHref ? html`<a href="${g.clientHref}">${g.clientName}</a>` : g.clientName}</strong> <span class="muted">${t('console.users.granted', { at: consoleTime(language, g.createdAt) })}</span><br><span class="muted">${g.scopes.join(' ')}</span>
${writeForm(model.viewer, { action: `${model.base}/grants/${g.id}/revoke`, label: t('console.users.revokeStep'), danger: true, method: 'get', ariaLabel: t('console.users.revokeLabel', { client: g.clientName }) })}</li>`,
      )}</ul>`
    : html`<p id="grant-list">${t('console.users.noGrant')}</p>`
}
<h3>${t('console.users.consents')}</h3>
${
  model.consents.length
    ? html`<ul class="rows" id="consent-list">${model.consents.map(
        (c) => html`<li><strong>${c.clientHref ? html`<a href="${c.clientHref}">${c.clientName}</a>` : c.clientName}</strong> <span class="muted">${t('console.users.allowed', { at: consoleTime(language, c.grantedAt) })}</span><br><span class="muted">${c.scopes.join(' ')}</span></li>`,
      )}</ul>`
    : html`<p id="consent-list">${t('console.users.noConsent')}</p>`
}</section>`;
}

export function userDetailBody(model: UserDetailModel): SafeHtml {
  const { user } = model;
  const { language } = model.viewer;
  const { t } = language;
  return html`<p><a href="/admin/users">${t('console.users.all')}</a></p>
<h1>${user.username}</h1>
<section id="profile" aria-labelledby="profile-heading"><h2 id="profile-heading">${t('console.users.profile')}</h2>
<dl class="profile">
<dt>${t('console.users.username')}</dt><dd id="user-username">${user.username}</dd>
<dt>${t('console.users.name')}</dt><dd id="user-name">${user.name}</dd>
<dt>${t('console.users.email')}</dt><dd id="user-email">${user.email}</dd>
<dt>${t('console.users.groups')}</dt><dd id="user-groups">${groupsText(language, user.groups)}</dd>
<dt>${t('console.users.created')}</dt><dd>${consoleTime(language, user.createdAt)}</dd>
<dt>${t('console.users.id')}</dt><dd><code>${user.id}</code></dd>
</dl>
${model.viewer.canWrite ? html`<p><a href="${model.base}/edit" id="edit-user">${t('console.users.edit')}</a></p>` : ''}
<p><a href="${model.auditHref}" id="user-audit">${t('console.users.auditEvents')}</a></p></section>
${statusSection(model)}
${factorsSection(model)}
${sessionsSection(model)}
${grantsSection(model)}`;
}

export interface UserFormModel {
  viewer: ConsoleViewer;
  action: string;
  heading: string;
  submitLabel: string;
  values: { username?: string; name: string; email: string; groups: string };
  /** Whether the username can be typed (creating) or is fixed (editing). */
  withUsername: boolean;
  error?: { message: string; code: string };
  cancelHref: string;
}

export function userFormBody(model: UserFormModel): SafeHtml {
  const { language } = model.viewer;
  const { t } = language;
  return html`<h1>${model.heading}</h1>
${model.error ? html`<div class="error" role="alert" id="form-error"><p>${model.error.message}</p>${errorCodeLine(language, model.error.code)}</div>` : ''}
<form method="post" action="${model.action}" id="user-form">
${csrfField(model.viewer)}
${model.withUsername ? html`<label for="username">${t('console.users.username')}</label>
<input id="username" name="username" value="${model.values.username ?? ''}" maxlength="64" autocomplete="off" spellcheck="false" required>` : ''}
<label for="name">${t('console.users.name')}</label>
<input id="name" name="name" value="${model.values.name}" maxlength="200" autocomplete="off" required>
<label for="email">${t('console.users.email')}</label>
<input id="email" name="email" type="email" value="${model.values.email}" maxlength="254" autocomplete="off" required>
<label for="groups">${t('console.users.groups')}</label>
<input id="groups" name="groups" value="${model.values.groups}" maxlength="1000" autocomplete="off" spellcheck="false" aria-describedby="groups-help">
<p class="muted" id="groups-help">${t('console.users.groupsHelp')}</p>
<div class="actions"><button type="submit" id="save-user">${model.submitLabel}</button><a class="button secondary" href="${model.cancelHref}">${t('console.cancel')}</a></div>
</form>`;
}

/** After creating a user or asking for a reset link: the one-time link, shown once. */
export function resetLinkBody(model: { language: PageLanguage; heading: string; intro: string; username: string; url: string; expiresAt: number; userHref: string }): SafeHtml {
  const { language } = model;
  const { t } = language;
  return html`<h1>${model.heading}</h1>
<p class="notice" role="status" id="flash">${model.intro}</p>
<p>${t('console.users.giveLink', { username: html`<strong>${model.username}</strong>`, at: consoleTime(language, model.expiresAt) })}</p>
<p><label for="reset-link-url">${t('console.users.resetLink')}</label>
<input id="reset-link-url" class="secret-link" value="${model.url}" readonly${raw(' spellcheck="false"')}></p>
<p><a href="${model.userHref}" id="back-to-user">${t('console.users.toUser')}</a></p>`;
}
