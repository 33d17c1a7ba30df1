/**
 * The console's Clients pages: the list, the create form, a client's page (its registration,
 * allowed scopes, secret and removal) and the one-time page of a new secret. Every form posts to
 * this origin with the console's CSRF field and works without script; the only script is the
 * copy button of a shown secret (public/static/admin-copy.js). A read-only admin sees the values
 * and no form that changes them.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import type { ClientView } from '../admin/client-admin.ts';
import { CLIENT_AUTH_METHODS, CLIENT_GRANT_TYPES } from '../clients/client-store.ts';
import type { ClientFormValues } from './client-form.ts';
import { consoleDate } from '../views/console-dashboard-page.ts';

import { auditTrailUrl, clientUrl, CONSOLE_PATH } from './console-paths.ts';

export const CLIENTS_PATH = `${CONSOLE_PATH}/clients`;

/** A refused form: the message, its stable code and the field it is about (when known). */
export interface FormError {
  code: string;
  message: string;
  field?: string;
}

const GRANT_LABELS: Readonly<Record<string, string>> = {
  authorization_code: 'Authorization code',
  refresh_token: 'Refresh token',
  client_credentials: 'Client credentials (machine to machine)',
  implicit: 'Implicit (ID token only)',
  'urn:ietf:params:oauth:grant-type:token-exchange': 'Token exchange (RFC 8693)',
  'urn:ietf:params:oauth:grant-type:device_code': 'Device authorization (RFC 8628)',
};

const AUTH_METHOD_LABELS: Readonly<Record<string, string>> = {
  client_secret_basic: 'Client secret, HTTP Basic (client_secret_basic)',
  client_secret_post: 'Client secret in the form (client_secret_post)',
  client_secret_jwt: 'JWT signed with the secret (client_secret_jwt)',
  private_key_jwt: 'JWT signed with its own key (private_key_jwt)',
  none: 'None (public client, PKCE)',
};

export const GRACE_CHOICES: readonly { seconds: number; label: string }[] = [
  { seconds: 0, label: 'none: the old secret stops working at once' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours' },
  { seconds: 7 * 86_400, label: '7 days' },
  { seconds: 30 * 86_400, label: '30 days' },
];

/** The refusal, where the admin is looking: above the form it belongs to. */
export function formError(error: FormError | undefined, id: string): SafeHtml | '' {
  if (!error) return '';
  return html`<div class="error" role="alert" id="${id}"><p>${error.message}</p><p class="muted">Error code: <code>${error.code}</code>${error.field ? html`, field <code>${error.field}</code>` : ''}</p></div>`;
}

const grantId = (grant: string): string => `grant-${grant.replace(/[^a-z0-9]+/gi, '-')}`;

export interface ClientListModel {
  clients: ClientView[];
  /** The link to the next page, when there is one. */
  nextHref: string | null;
  readOnly: boolean;
}

export function clientListBody(model: ClientListModel): SafeHtml {
  const rows = model.clients.map(
    (c) => html`<tr>
<th scope="row"><a href="${clientUrl(c.clientId)}">${c.clientId}</a></th>
<td>${c.name}</td>
<td>${c.public ? 'public' : 'confidential'}</td>
<td><code>${c.tokenEndpointAuthMethod}</code></td>
<td>${c.grantTypes.map((g) => GRANT_LABELS[g] ?? g).join(', ')}</td>
<td>${c.firstParty ? 'yes' : 'no'}</td>
</tr>`,
  );
  return html`<h1>Clients</h1>
${model.readOnly ? '' : html`<p><a class="button" href="${CLIENTS_PATH}/new" id="new-client">Register a client</a></p>`}
${
  model.clients.length === 0
    ? html`<p id="no-clients">No clients are registered.</p>`
    : html`<div class="table-wrap" role="region" aria-label="Registered clients" tabindex="0"><table id="client-list">
<caption class="visually-hidden">Registered clients</caption>
<thead><tr><th scope="col">Client ID</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Authentication</th><th scope="col">Grants</th><th scope="col">First-party</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}
${model.nextHref ? html`<p><a href="${model.nextHref}" rel="next" id="next-page">Next page</a></p>` : ''}`;
}

function registrationFields(values: ClientFormValues, mode: 'new' | 'edit'): SafeHtml {
  const methods = values.public ? (['none'] as const) : CLIENT_AUTH_METHODS;
  return html`<label for="name">Display name</label>
<input id="name" name="name" maxlength="128" value="${values.name}" aria-describedby="name-hint">
<p class="muted" id="name-hint">Shown on the consent page${mode === 'new' ? '; the client ID when empty' : ''}.</p>
<label for="logo_uri">Logo URL</label>
<input id="logo_uri" name="logo_uri" type="url" maxlength="2048" value="${values.logoUri}" aria-describedby="logo-hint">
<p class="muted" id="logo-hint">https (http only on localhost); shown on the consent page${mode === 'edit' ? '; empty removes it' : ''}.</p>
<label for="redirect_uris">Redirect URIs</label>
<textarea id="redirect_uris" name="redirect_uris" rows="3" aria-describedby="redirect-hint">${values.redirectUris}</textarea>
<p class="muted" id="redirect-hint">One per line. Needed for the authorization-code grant.</p>
<label for="post_logout_redirect_uris">Post-logout redirect URIs</label>
<textarea id="post_logout_redirect_uris" name="post_logout_redirect_uris" rows="2" aria-describedby="post-logout-hint">${values.postLogoutRedirectUris}</textarea>
<p class="muted" id="post-logout-hint">One per line.</p>
<fieldset><legend>Grant types</legend>
${CLIENT_GRANT_TYPES.map(
  (grant) => html`<div class="check"><input type="checkbox" id="${grantId(grant)}" name="grant.${grant}"${values.grantTypes.includes(grant) ? html` checked` : ''}><label for="${grantId(grant)}">${GRANT_LABELS[grant] ?? grant}</label></div>`,
)}
</fieldset>
${
  mode === 'edit' && values.public
    ? html`<p>Authentication: <code>none</code> (public client, PKCE)</p>`
    : html`<label for="auth_method">Authentication at the token endpoint</label>
<select id="auth_method" name="auth_method">
${methods.map((m) => html`<option value="${m}"${values.authMethod === m ? html` selected` : ''}>${AUTH_METHOD_LABELS[m] ?? m}</option>`)}
</select>
<label for="jwks_uri">JWKS URL (private_key_jwt only)</label>
<input id="jwks_uri" name="jwks_uri" type="url" maxlength="2048" value="${values.jwksUri}">`
}
<div class="check"><input type="checkbox" id="first_party" name="first_party"${values.firstParty ? html` checked` : ''} aria-describedby="first-party-hint"><label for="first_party">First-party application</label></div>
<p class="muted" id="first-party-hint">A first-party application skips the consent page (unless it asks with prompt=consent).</p>`;
}

export interface NewClientModel {
  values: ClientFormValues;
  error?: FormError;
  csrf: SafeHtml;
}

export function newClientBody(model: NewClientModel): SafeHtml {
  const v = model.values;
  return html`<p><a href="${CLIENTS_PATH}">← Clients</a></p>
<h1>Register a client</h1>
${formError(model.error, 'client-error')}
<form method="post" action="${CLIENTS_PATH}" id="new-client-form">
${model.csrf}
<label for="client_id">Client ID</label>
<input id="client_id" name="client_id" required maxlength="128" pattern="[a-zA-Z0-9._\\-]{1,128}" value="${v.clientId}" aria-describedby="client-id-hint" autocomplete="off">
<p class="muted" id="client-id-hint">1 to 128 letters, digits, dots, dashes or underscores.</p>
<fieldset><legend>Type</legend>
<div class="check"><input type="radio" id="type-confidential" name="type" value="confidential"${v.public ? '' : html` checked`}><label for="type-confidential">Confidential: runs on a server and keeps a secret</label></div>
<div class="check"><input type="radio" id="type-public" name="type" value="public"${v.public ? html` checked` : ''}><label for="type-public">Public: a browser or mobile app without a secret (PKCE)</label></div>
</fieldset>
${registrationFields(v, 'new')}
<button type="submit">Register the client</button>
</form>`;
}

export interface ClientCreatedModel {
  client: ClientView;
  /** Absent for a public client (and private_key_jwt): it has no secret. */
  secret?: string;
  /** Rotation: until when the replaced secret keeps working (epoch ms). */
  previousExpiresAt?: number;
  heading: string;
}

/** The one page that shows a secret in clear; it is never shown again. */
export function secretShownBody(model: ClientCreatedModel): SafeHtml {
  const c = model.client;
  return html`<p class="notice" role="status" id="flash">${model.heading}</p>
<h1>${c.name}</h1>
<dl class="profile">
<dt>Client ID</dt><dd><code id="created-client-id">${c.clientId}</code></dd>
</dl>
${
  model.secret === undefined
    ? html`<p id="no-secret">This client has no secret: it authenticates with <code>${c.tokenEndpointAuthMethod}</code>.</p>`
    : html`<section aria-labelledby="secret-heading"><h2 id="secret-heading">Client secret</h2>
<p><strong>Copy it now: it is shown only once.</strong> Gatehouse keeps it sealed and cannot show it again; if it is lost, rotate the secret.</p>
<p class="secret"><code id="client-secret">${model.secret}</code></p>
<p><button type="button" class="secondary" id="copy-secret" data-copy="client-secret" hidden>Copy the secret</button> <span id="copy-status" role="status"></span></p>
${model.previousExpiresAt !== undefined ? html`<p id="previous-expires">The replaced secret keeps working until ${consoleDate(model.previousExpiresAt)}.</p>` : ''}
</section>`
}
<p><a class="button" href="${clientUrl(c.clientId)}" id="to-client">Go to the client</a></p>`;
}

export interface ClientDetailModel {
  client: ClientView;
  values: ClientFormValues;
  /** The client's allowed scopes: null is any API scope (never an admin scope). */
  allowedScopes: string[] | null;
  /** The scopes the allowed-scopes form offers: the API scopes, then the admin scopes. */
  offeredScopes: readonly string[];
  readOnly: boolean;
  csrf: SafeHtml;
  /** A refused form and which one. */
  error?: FormError & { form: 'registration' | 'scopes' | 'secret' };
}

function detailsList(c: ClientView, allowed: string[] | null): SafeHtml {
  return html`<dl class="profile" id="client-details">
<dt>Client ID</dt><dd id="detail-client-id"><code>${c.clientId}</code></dd>
<dt>Display name</dt><dd id="detail-name">${c.name}</dd>
<dt>Logo</dt><dd id="detail-logo">${c.logoUri ?? 'none'}</dd>
<dt>Type</dt><dd>${c.public ? 'public' : 'confidential'}</dd>
<dt>Authentication</dt><dd id="detail-auth"><code>${c.tokenEndpointAuthMethod}</code></dd>
<dt>Grant types</dt><dd id="detail-grants">${c.grantTypes.join(', ')}</dd>
<dt>Redirect URIs</dt><dd id="detail-redirects">${c.redirectUris.length ? c.redirectUris.map((u) => html`<code>${u}</code> `) : 'none'}</dd>
<dt>Post-logout URIs</dt><dd id="detail-post-logout">${c.postLogoutRedirectUris.length ? c.postLogoutRedirectUris.map((u) => html`<code>${u}</code> `) : 'none'}</dd>
<dt>First-party</dt><dd id="detail-first-party">${c.firstParty ? 'yes' : 'no'}</dd>
<dt>Allowed scopes</dt><dd id="detail-scopes">${allowed === null ? 'any API scope' : allowed.join(' ')}</dd>
<dt>Registered</dt><dd>${consoleDate(c.createdAt)}</dd>
<dt>Secret rotated</dt><dd id="detail-rotated">${c.secretRotatedAt === undefined ? 'never' : consoleDate(c.secretRotatedAt)}${c.previousSecretExpiresAt !== undefined ? html` (the previous secret works until ${consoleDate(c.previousSecretExpiresAt)})` : ''}</dd>
</dl>`;
}

function scopesForm(model: ClientDetailModel): SafeHtml {
  const allowed = model.allowedScopes;
  return html`<form method="post" action="${clientUrl(model.client.clientId)}/scopes" id="scopes-form">
${model.csrf}
<fieldset><legend>The client may request</legend>
<div class="check"><input type="radio" id="scopes-any" name="scopes" value="any"${allowed === null ? html` checked` : ''}><label for="scopes-any">Any API scope (never an admin scope)</label></div>
<div class="check"><input type="radio" id="scopes-list" name="scopes" value="list"${allowed === null ? '' : html` checked`}><label for="scopes-list">Only the scopes checked below</label></div>
${model.offeredScopes.map(
  (scope) =>
    html`<div class="check"><input type="checkbox" id="scope-${scope.replace(/[^a-z0-9]+/gi, '-')}" name="scope.${scope}"${allowed?.includes(scope) ? html` checked` : ''}><label for="scope-${scope.replace(/[^a-z0-9]+/gi, '-')}"><code>${scope}</code></label></div>`,
)}
</fieldset>
<button type="submit">Save the allowed scopes</button>
</form>`;
}

export function clientDetailBody(model: ClientDetailModel): SafeHtml {
  const c = model.client;
  const error = (form: 'registration' | 'scopes' | 'secret') => (model.error?.form === form ? formError(model.error, `${form}-error`) : '');
  const path = clientUrl(c.clientId);
  return html`<p><a href="${CLIENTS_PATH}">← Clients</a></p>
<h1>${c.name}</h1>
${detailsList(c, model.allowedScopes)}
<p><a href="${auditTrailUrl({ client: c.clientId })}" id="client-audit">Audit events of this client</a></p>
${
  model.readOnly
    ? html`<p class="muted" id="read-only-note">You have read-only access: you can see this client but not change it.</p>`
    : html`<section aria-labelledby="edit-heading"><h2 id="edit-heading">Registration</h2>
${error('registration')}
<form method="post" action="${path}" id="edit-client-form">
${model.csrf}
${registrationFields(model.values, 'edit')}
<button type="submit">Save the registration</button>
</form></section>
<section aria-labelledby="scopes-heading"><h2 id="scopes-heading">Allowed scopes</h2>
${error('scopes')}
${scopesForm(model)}</section>
<section aria-labelledby="secret-section-heading"><h2 id="secret-section-heading">Secret</h2>
${error('secret')}
${
  c.public || c.tokenEndpointAuthMethod === 'private_key_jwt'
    ? html`<p>This client has no secret to rotate.</p>`
    : html`<form method="get" action="${path}/rotate" id="rotate-form">
<label for="grace">Keep the replaced secret working for</label>
<select id="grace" name="grace">${GRACE_CHOICES.map((g) => html`<option value="${g.seconds}"${g.seconds === 86_400 ? html` selected` : ''}>${g.label}</option>`)}</select>
<button type="submit" class="secondary">Rotate the secret…</button>
</form>`
}</section>
<section aria-labelledby="remove-heading"><h2 id="remove-heading">Remove</h2>
<p>Removing the client ends its tokens and secrets at once.</p>
<p><a class="button danger" href="${path}/remove" id="remove-client">Remove this client…</a></p></section>`
}`;
}
