/**
 * The Users section of the admin console: the list (search, pages), a user's page (profile,
 * status, lockout, second factors, sessions, devices, passkeys, apps and grants, a link to their
 * audit events) and the forms to create and edit a user. Write controls are rendered only for
 * admins (`writeForm`, views/console-layout.ts); every destructive one leads to a confirmation page.
 */
import { html, raw, type SafeHtml } from '@gatehouse/html';
import { csrfField, writeForm, type ConsoleViewer } from './console-layout.ts';
import { consoleDate } from './console-dashboard-page.ts';

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

const groupsText = (groups: readonly string[]) => (groups.length ? groups.join(', ') : 'none');

export function userListBody(model: UserListModel): SafeHtml {
  return html`<h1>Users</h1>
<form method="get" action="/admin/users" class="search" role="search">
<label for="user-search">Search by username or email</label>
<input id="user-search" name="q" value="${model.search}" maxlength="128" autocomplete="off" spellcheck="false">
<button type="submit" id="user-search-submit">Search</button>
</form>
${model.viewer.canWrite ? html`<p><a class="button" href="/admin/users/new" id="new-user">Create a user</a></p>` : ''}
${
  model.users.length
    ? html`<div class="table-wrap" role="region" aria-label="Users" tabindex="0"><table id="user-table"><caption class="visually-hidden">Users${model.search ? html` matching ${model.search}` : ''}</caption>
<thead><tr><th scope="col">Username</th><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Groups</th><th scope="col">Status</th></tr></thead>
<tbody>${model.users.map(
        (u) => html`<tr><td><a href="${model.userHref(u.id)}">${u.username}</a></td><td>${u.name}</td><td>${u.email}</td><td>${groupsText(u.groups)}</td><td>${u.disabled ? html`<span class="badge warn">disabled</span>` : html`<span class="badge ok">active</span>`}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p id="user-table">${model.search ? 'No user matches this search.' : 'There are no users yet.'}</p>`
}
<nav class="pager" aria-label="Pages of users">
${model.firstHref ? html`<a href="${model.firstHref}" id="first-page">First page</a>` : ''}
${model.nextHref ? html`<a href="${model.nextHref}" id="next-page">Next page</a>` : ''}
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
  return html`<section id="status" aria-labelledby="status-heading"><h2 id="status-heading">Status</h2>
<dl class="profile">
<dt>Account</dt><dd id="user-status">${user.disabledAt !== null ? html`<span class="badge warn">disabled</span> since ${consoleDate(user.disabledAt)}` : html`<span class="badge ok">active</span>`}</dd>
<dt>Lockout</dt><dd id="user-lockout">${model.lockedUntil !== null ? html`<span class="badge warn">locked out</span> until ${consoleDate(model.lockedUntil)}` : 'not locked out'}</dd>
</dl>
<div class="actions">
${user.disabledAt !== null ? writeForm(viewer, { action: `${base}/enable`, label: 'Enable', id: 'enable-user' }) : writeForm(viewer, { action: `${base}/disable`, label: 'Disable…', id: 'disable-user', danger: true, method: 'get' })}
${writeForm(viewer, { action: `${base}/unlock`, label: 'Unlock', id: 'unlock-user' })}
${user.disabledAt === null ? writeForm(viewer, { action: `${base}/reset-link`, label: 'Create a password-reset link', id: 'reset-link' }) : ''}
${writeForm(viewer, { action: `${base}/remove`, label: 'Remove…', id: 'remove-user', danger: true, method: 'get' })}
</div>
<p class="muted">Unlock clears the failed sign-ins that lock this account's password and second-factor steps.</p></section>`;
}

function factorsSection(model: UserDetailModel): SafeHtml {
  const f = model.secondFactors;
  return html`<section id="factors" aria-labelledby="factors-heading"><h2 id="factors-heading">Second factors</h2>
<dl class="profile">
<dt>Authenticator app</dt><dd id="factor-totp">${f.totp ? 'set up' : 'not set up'}</dd>
<dt>Recovery codes left</dt><dd id="factor-recovery">${String(f.recoveryCodesLeft)}</dd>
</dl>
<h3>Authenticator devices (${String(f.devices)})</h3>
${model.devices.length ? html`<ul class="rows" id="device-list">${model.devices.map((d) => html`<li><strong>${d.name}</strong> <span class="muted">added ${consoleDate(d.createdAt)} · last used ${consoleDate(d.lastUsedAt)}</span></li>`)}</ul>` : html`<p id="device-list">No device.</p>`}
<h3>Passkeys (${String(f.passkeys)})</h3>
${model.passkeys.length ? html`<ul class="rows" id="passkey-list">${model.passkeys.map((p) => html`<li><strong>${p.name}</strong> <span class="muted">added ${consoleDate(p.createdAt)} · last used ${consoleDate(p.lastUsedAt)}</span></li>`)}</ul>` : html`<p id="passkey-list">No passkey.</p>`}
${writeForm(model.viewer, { action: `${model.base}/second-factors/reset`, label: 'Reset second factors…', id: 'reset-factors', danger: true, method: 'get' })}</section>`;
}

function sessionsSection(model: UserDetailModel): SafeHtml {
  return html`<section id="sessions" aria-labelledby="sessions-heading"><h2 id="sessions-heading">Sessions</h2>
${
  model.sessions.length
    ? html`<ul class="rows" id="session-list">${model.sessions.map(
        (s) => html`<li><strong>${s.browser}</strong>${s.ip ? html` <span class="muted">from ${s.ip}</span>` : ''}<br><span class="muted">signed in ${consoleDate(s.signedInAt)} · last used ${consoleDate(s.lastUsedAt)}${s.clients.length ? html` · ${s.clients.join(', ')}` : ''}</span></li>`,
      )}</ul>`
    : html`<p id="session-list">No active session.</p>`
}
${model.sessions.length ? writeForm(model.viewer, { action: `${model.base}/sign-out`, label: 'Sign out everywhere…', id: 'sign-out-everywhere', danger: true, method: 'get' }) : ''}</section>`;
}

function grantsSection(model: UserDetailModel): SafeHtml {
  return html`<section id="grants" aria-labelledby="grants-heading"><h2 id="grants-heading">Apps and grants</h2>
${
  model.grants.length
    ? html`<ul class="rows" id="grant-list">${model.grants.map(
        (g) => html`<li data-client-id="${g.clientId}"><strong>${g.clientHref ? html`<a href="${g.clientHref}">${g.clientName}</a>` : g.clientName}</strong> <span class="muted">granted ${consoleDate(g.createdAt)}</span><br><span class="muted">${g.scopes.join(' ')}</span>
${writeForm(model.viewer, { action: `${model.base}/grants/${g.id}/revoke`, label: 'Revoke…', danger: true, method: 'get', ariaLabel: `Revoke the grant of ${g.clientName}` })}</li>`,
      )}</ul>`
    : html`<p id="grant-list">No app holds a grant of this user.</p>`
}
<h3>Allowed on the consent page</h3>
${
  model.consents.length
    ? html`<ul class="rows" id="consent-list">${model.consents.map(
        (c) => html`<li><strong>${c.clientHref ? html`<a href="${c.clientHref}">${c.clientName}</a>` : c.clientName}</strong> <span class="muted">allowed ${consoleDate(c.grantedAt)}</span><br><span class="muted">${c.scopes.join(' ')}</span></li>`,
      )}</ul>`
    : html`<p id="consent-list">The user has allowed no app on the consent page (first-party apps do not ask).</p>`
}</section>`;
}

export function userDetailBody(model: UserDetailModel): SafeHtml {
  const { user } = model;
  return html`<p><a href="/admin/users">All users</a></p>
<h1>${user.username}</h1>
<section id="profile" aria-labelledby="profile-heading"><h2 id="profile-heading">Profile</h2>
<dl class="profile">
<dt>Username</dt><dd id="user-username">${user.username}</dd>
<dt>Name</dt><dd id="user-name">${user.name}</dd>
<dt>Email</dt><dd id="user-email">${user.email}</dd>
<dt>Groups</dt><dd id="user-groups">${groupsText(user.groups)}</dd>
<dt>Created</dt><dd>${consoleDate(user.createdAt)}</dd>
<dt>Id</dt><dd><code>${user.id}</code></dd>
</dl>
${model.viewer.canWrite ? html`<p><a href="${model.base}/edit" id="edit-user">Edit profile and groups</a></p>` : ''}
<p><a href="${model.auditHref}" id="user-audit">Audit events of this user</a></p></section>
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
  return html`<h1>${model.heading}</h1>
${model.error ? html`<div class="error" role="alert" id="form-error"><p>${model.error.message}</p><p class="muted">Error code: <code>${model.error.code}</code></p></div>` : ''}
<form method="post" action="${model.action}" id="user-form">
${csrfField(model.viewer)}
${model.withUsername ? html`<label for="username">Username</label>
<input id="username" name="username" value="${model.values.username ?? ''}" maxlength="64" autocomplete="off" spellcheck="false" required>` : ''}
<label for="name">Name</label>
<input id="name" name="name" value="${model.values.name}" maxlength="200" autocomplete="off" required>
<label for="email">Email</label>
<input id="email" name="email" type="email" value="${model.values.email}" maxlength="254" autocomplete="off" required>
<label for="groups">Groups</label>
<input id="groups" name="groups" value="${model.values.groups}" maxlength="1000" autocomplete="off" spellcheck="false" aria-describedby="groups-help">
<p class="muted" id="groups-help">Separated by commas or spaces. <code>admins</code> may use this console; <code>auditors</code> may read it.</p>
<div class="actions"><button type="submit" id="save-user">${model.submitLabel}</button><a class="button secondary" href="${model.cancelHref}">Cancel</a></div>
</form>`;
}

/** After creating a user or asking for a reset link: the one-time link, shown once. */
export function resetLinkBody(model: { heading: string; intro: string; username: string; url: string; expiresAt: number; userHref: string }): SafeHtml {
  return html`<h1>${model.heading}</h1>
<p class="notice" role="status" id="flash">${model.intro}</p>
<p>Give this one-time link to <strong>${model.username}</strong>. It sets a new password, works once and expires at ${consoleDate(model.expiresAt)}. It is shown only now.</p>
<p><label for="reset-link-url">Password-reset link</label>
<input id="reset-link-url" class="secret-link" value="${model.url}" readonly${raw(' spellcheck="false"')}></p>
<p><a href="${model.userHref}" id="back-to-user">Go to the user's page</a></p>`;
}
