/**
 * The console's Clients pages: the list, the create form, a client's page (its registration,
 * allowed scopes, secret and removal) and the one-time page of a new secret. Every form posts to
 * this origin with the console's CSRF field and works without script; the only script is the
 * copy button of a shown secret (public/static/console-copy.js), which says what it did in the
 * page's language (the data-copied and data-copy-failed attributes of #copy-status). A read-only
 * admin sees the values and no form that changes them.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import type { ClientView } from '../admin/client-admin.ts';
import { CLIENT_AUTH_METHODS, CLIENT_GRANT_TYPES } from '../clients/client-store.ts';
import type { PageLanguage } from '../i18n/page-language.ts';
import type { ConsoleTextKey } from '../i18n/console-en.ts';
import type { ClientFormValues } from './client-form.ts';
import { consoleTime } from '../views/console-time.ts';

import { auditTrailUrl, clientUrl, CONSOLE_PATH } from './console-paths.ts';

export const CLIENTS_PATH = `${CONSOLE_PATH}/clients`;

/** A refused form: the message, its stable code and the field it is about (when known). */
export interface FormError {
  code: string;
  message: string;
  field?: string;
}

const GRANT_LABELS = {
  authorization_code: 'console.clients.grant.authorizationCode',
  refresh_token: 'console.clients.grant.refreshToken',
  client_credentials: 'console.clients.grant.clientCredentials',
  implicit: 'console.clients.grant.implicit',
  'urn:ietf:params:oauth:grant-type:token-exchange': 'console.clients.grant.tokenExchange',
  'urn:ietf:params:oauth:grant-type:device_code': 'console.clients.grant.deviceCode',
} as const;

const AUTH_METHOD_LABELS = {
  client_secret_basic: 'console.clients.auth.clientSecretBasic',
  client_secret_post: 'console.clients.auth.clientSecretPost',
  client_secret_jwt: 'console.clients.auth.clientSecretJwt',
  private_key_jwt: 'console.clients.auth.privateKeyJwt',
  none: 'console.clients.auth.none',
} as const;

const labelOf = (language: PageLanguage, labels: Readonly<Record<string, ConsoleTextKey>>, value: string): string => {
  const key = Object.hasOwn(labels, value) ? labels[value] : undefined;
  return key ? language.t(key) : value;
};

/** A grant type as the console names it (its own value when the console has no name for it). */
export const grantLabel = (language: PageLanguage, grant: string): string => labelOf(language, GRANT_LABELS, grant);

export const GRACE_CHOICES = [
  { seconds: 0, label: 'console.clients.grace.none' },
  { seconds: 3_600, label: 'console.clients.grace.hour' },
  { seconds: 86_400, label: 'console.clients.grace.day' },
  { seconds: 7 * 86_400, label: 'console.clients.grace.week' },
  { seconds: 30 * 86_400, label: 'console.clients.grace.month' },
] as const;

export type GraceChoice = (typeof GRACE_CHOICES)[number];

/** The refusal, where the admin is looking: above the form it belongs to. */
export function formError(language: PageLanguage, error: FormError | undefined, id: string): SafeHtml | '' {
  if (!error) return '';
  return html`<div class="error" role="alert" id="${id}"><p>${error.message}</p><p class="muted">${language.t('console.errorCode')} <code>${error.code}</code>${error.field ? language.t('console.errorField', { field: error.field }) : ''}</p></div>`;
}

const grantId = (grant: string): string => `grant-${grant.replace(/[^a-z0-9]+/gi, '-')}`;

const clientType = (language: PageLanguage, c: { public: boolean }): string => language.t(c.public ? 'console.clients.public' : 'console.clients.confidential');
const yesNo = (language: PageLanguage, value: boolean | undefined): string => language.t(value ? 'console.yes' : 'console.no');

export interface ClientListModel {
  language: PageLanguage;
  clients: ClientView[];
  /** The link to the next page, when there is one. */
  nextHref: string | null;
  readOnly: boolean;
}

export function clientListBody(model: ClientListModel): SafeHtml {
  const { language } = model;
  const { t } = language;
  const rows = model.clients.map(
    (c) => html`<tr>
<th scope="row"><a href="${clientUrl(c.clientId)}">${c.clientId}</a></th>
<td>${c.name}</td>
<td>${clientType(language, c)}</td>
<td><code>${c.tokenEndpointAuthMethod}</code></td>
<td>${c.grantTypes.map((g) => grantLabel(language, g)).join(', ')}</td>
<td>${yesNo(language, c.firstParty)}</td>
</tr>`,
  );
  return html`<h1>${t('console.nav.clients')}</h1>
${model.readOnly ? '' : html`<p><a class="button" href="${CLIENTS_PATH}/new" id="new-client">${t('console.clients.register')}</a></p>`}
${
  model.clients.length === 0
    ? html`<p id="no-clients">${t('console.clients.none')}</p>`
    : html`<div class="table-wrap" role="region" aria-label="${t('console.clients.registered')}" tabindex="0"><table id="client-list">
<caption class="visually-hidden">${t('console.clients.registered')}</caption>
<thead><tr><th scope="col">${t('console.clients.clientId')}</th><th scope="col">${t('console.clients.name')}</th><th scope="col">${t('console.clients.type')}</th><th scope="col">${t('console.clients.authentication')}</th><th scope="col">${t('console.clients.grants')}</th><th scope="col">${t('console.clients.firstParty')}</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}
${model.nextHref ? html`<p><a href="${model.nextHref}" rel="next" id="next-page">${t('console.users.nextPage')}</a></p>` : ''}`;
}

function registrationFields(language: PageLanguage, values: ClientFormValues, mode: 'new' | 'edit'): SafeHtml {
  const { t } = language;
  const methods = values.public ? (['none'] as const) : CLIENT_AUTH_METHODS;
  return html`<label for="name">${t('console.clients.displayName')}</label>
<input id="name" name="name" maxlength="128" value="${values.name}" aria-describedby="name-hint">
<p class="muted" id="name-hint">${t(mode === 'new' ? 'console.clients.nameHintNew' : 'console.clients.nameHint')}</p>
<label for="logo_uri">${t('console.clients.logoUrl')}</label>
<input id="logo_uri" name="logo_uri" type="url" maxlength="2048" value="${values.logoUri}" aria-describedby="logo-hint">
<p class="muted" id="logo-hint">${t(mode === 'edit' ? 'console.clients.logoHintEdit' : 'console.clients.logoHint')}</p>
<label for="redirect_uris">${t('console.clients.redirectUris')}</label>
<textarea id="redirect_uris" name="redirect_uris" rows="3" aria-describedby="redirect-hint">${values.redirectUris}</textarea>
<p class="muted" id="redirect-hint">${t('console.clients.redirectHint')}</p>
<label for="post_logout_redirect_uris">${t('console.clients.postLogoutUris')}</label>
<textarea id="post_logout_redirect_uris" name="post_logout_redirect_uris" rows="2" aria-describedby="post-logout-hint">${values.postLogoutRedirectUris}</textarea>
<p class="muted" id="post-logout-hint">${t('console.clients.onePerLine')}</p>
<fieldset><legend>${t('console.clients.grantTypes')}</legend>
${CLIENT_GRANT_TYPES.map(
  (grant) => html`<div class="check"><input type="checkbox" id="${grantId(grant)}" name="grant.${grant}"${values.grantTypes.includes(grant) ? html` checked` : ''}><label for="${grantId(grant)}">${grantLabel(language, grant)}</label></div>`,
)}
</fieldset>
${
  mode === 'edit' && values.public
    ? html`<p>${t('console.clients.publicAuth')}</p>`
    : html`<label for="auth_method">${t('console.clients.authMethod')}</label>
<select id="auth_method" name="auth_method">
${methods.map((m) => html`<option value="${m}"${values.authMethod === m ? html` selected` : ''}>${labelOf(language, AUTH_METHOD_LABELS, m)}</option>`)}
</select>
<label for="jwks_uri">${t('console.clients.jwksUri')}</label>
<input id="jwks_uri" name="jwks_uri" type="url" maxlength="2048" value="${values.jwksUri}">`
}
<div class="check"><input type="checkbox" id="first_party" name="first_party"${values.firstParty ? html` checked` : ''} aria-describedby="first-party-hint"><label for="first_party">${t('console.clients.firstPartyApp')}</label></div>
<p class="muted" id="first-party-hint">${t('console.clients.firstPartyHint')}</p>`;
}

export interface NewClientModel {
  language: PageLanguage;
  values: ClientFormValues;
  error?: FormError;
  csrf: SafeHtml;
}

export function newClientBody(model: NewClientModel): SafeHtml {
  const { language } = model;
  const { t } = language;
  const v = model.values;
  return html`<p><a href="${CLIENTS_PATH}">${t('console.clients.back')}</a></p>
<h1>${t('console.clients.register')}</h1>
${formError(language, model.error, 'client-error')}
<form method="post" action="${CLIENTS_PATH}" id="new-client-form">
${model.csrf}
<label for="client_id">${t('console.clients.clientId')}</label>
<input id="client_id" name="client_id" required maxlength="128" pattern="[a-zA-Z0-9._\\-]{1,128}" value="${v.clientId}" aria-describedby="client-id-hint" autocomplete="off">
<p class="muted" id="client-id-hint">${t('console.clients.clientIdHint')}</p>
<fieldset><legend>${t('console.clients.type')}</legend>
<div class="check"><input type="radio" id="type-confidential" name="type" value="confidential"${v.public ? '' : html` checked`}><label for="type-confidential">${t('console.clients.typeConfidential')}</label></div>
<div class="check"><input type="radio" id="type-public" name="type" value="public"${v.public ? html` checked` : ''}><label for="type-public">${t('console.clients.typePublic')}</label></div>
</fieldset>
${registrationFields(language, v, 'new')}
<button type="submit">${t('console.clients.registerSubmit')}</button>
</form>`;
}

export interface ClientCreatedModel {
  language: PageLanguage;
  client: ClientView;
  /** Absent for a public client (and private_key_jwt): it has no secret. */
  secret?: string;
  /** Rotation: until when the replaced secret keeps working (epoch ms). */
  previousExpiresAt?: number;
  heading: string;
}

/** The one page that shows a secret in clear; it is never shown again. */
export function secretShownBody(model: ClientCreatedModel): SafeHtml {
  const { language } = model;
  const { t } = language;
  const c = model.client;
  return html`<p class="notice" role="status" id="flash">${model.heading}</p>
<h1>${c.name}</h1>
<dl class="profile">
<dt>${t('console.clients.clientId')}</dt><dd><code id="created-client-id">${c.clientId}</code></dd>
</dl>
${
  model.secret === undefined
    ? html`<p id="no-secret">${t('console.clients.noSecretAuth', { method: c.tokenEndpointAuthMethod })}</p>`
    : html`<section aria-labelledby="secret-heading"><h2 id="secret-heading">${t('console.clients.secretHeading')}</h2>
<p>${t('console.clients.copyNow')}</p>
<p class="secret"><code id="client-secret">${model.secret}</code></p>
<p><button type="button" class="secondary" id="copy-secret" data-copy="client-secret" hidden>${t('console.clients.copySecret')}</button> <span id="copy-status" role="status" data-copied="${t('console.clients.copied')}" data-copy-failed="${t('console.clients.copyFailed')}"></span></p>
${model.previousExpiresAt !== undefined ? html`<p id="previous-expires">${t('console.clients.previousWorksUntil', { at: consoleTime(language, model.previousExpiresAt) })}</p>` : ''}
</section>`
}
<p><a class="button" href="${clientUrl(c.clientId)}" id="to-client">${t('console.clients.toClient')}</a></p>`;
}

export interface ClientDetailModel {
  language: PageLanguage;
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

function detailsList(language: PageLanguage, c: ClientView, allowed: string[] | null): SafeHtml {
  const { t } = language;
  const none = t('console.none');
  return html`<dl class="profile" id="client-details">
<dt>${t('console.clients.clientId')}</dt><dd id="detail-client-id"><code>${c.clientId}</code></dd>
<dt>${t('console.clients.displayName')}</dt><dd id="detail-name">${c.name}</dd>
<dt>${t('console.clients.logo')}</dt><dd id="detail-logo">${c.logoUri ?? none}</dd>
<dt>${t('console.clients.type')}</dt><dd>${clientType(language, c)}</dd>
<dt>${t('console.clients.authentication')}</dt><dd id="detail-auth"><code>${c.tokenEndpointAuthMethod}</code></dd>
<dt>${t('console.clients.grantTypes')}</dt><dd id="detail-grants">${c.grantTypes.join(', ')}</dd>
<dt>${t('console.clients.redirectUris')}</dt><dd id="detail-redirects">${c.redirectUris.length ? c.redirectUris.map((u) => html`<code>${u}</code> `) : none}</dd>
<dt>${t('console.clients.postLogoutUris')}</dt><dd id="detail-post-logout">${c.postLogoutRedirectUris.length ? c.postLogoutRedirectUris.map((u) => html`<code>${u}</code> `) : none}</dd>
<dt>${t('console.clients.firstParty')}</dt><dd id="detail-first-party">${yesNo(language, c.firstParty)}</dd>
<dt>${t('console.clients.allowedScopes')}</dt><dd id="detail-scopes">${allowed === null ? t('console.clients.anyApiScope') : allowed.join(' ')}</dd>
<dt>${t('console.clients.registeredAt')}</dt><dd>${consoleTime(language, c.createdAt)}</dd>
<dt>${t('console.clients.secretRotated')}</dt><dd id="detail-rotated">${consoleTime(language, c.secretRotatedAt)}${c.previousSecretExpiresAt !== undefined ? t('console.clients.previousUntil', { at: consoleTime(language, c.previousSecretExpiresAt) }) : ''}</dd>
</dl>`;
}

function scopesForm(model: ClientDetailModel): SafeHtml {
  const { t } = model.language;
  const allowed = model.allowedScopes;
  return html`<form method="post" action="${clientUrl(model.client.clientId)}/scopes" id="scopes-form">
${model.csrf}
<fieldset><legend>${t('console.clients.mayRequest')}</legend>
<div class="check"><input type="radio" id="scopes-any" name="scopes" value="any"${allowed === null ? html` checked` : ''}><label for="scopes-any">${t('console.clients.anyScope')}</label></div>
<div class="check"><input type="radio" id="scopes-list" name="scopes" value="list"${allowed === null ? '' : html` checked`}><label for="scopes-list">${t('console.clients.onlyChecked')}</label></div>
${model.offeredScopes.map(
  (scope) =>
    html`<div class="check"><input type="checkbox" id="scope-${scope.replace(/[^a-z0-9]+/gi, '-')}" name="scope.${scope}"${allowed?.includes(scope) ? html` checked` : ''}><label for="scope-${scope.replace(/[^a-z0-9]+/gi, '-')}"><code>${scope}</code></label></div>`,
)}
</fieldset>
<button type="submit">${t('console.clients.saveScopes')}</button>
</form>`;
}

export function clientDetailBody(model: ClientDetailModel): SafeHtml {
  const { language } = model;
  const { t } = language;
  const c = model.client;
  const error = (form: 'registration' | 'scopes' | 'secret') => (model.error?.form === form ? formError(language, model.error, `${form}-error`) : '');
  const path = clientUrl(c.clientId);
  return html`<p><a href="${CLIENTS_PATH}">${t('console.clients.back')}</a></p>
<h1>${c.name}</h1>
${detailsList(language, c, model.allowedScopes)}
<p><a href="${auditTrailUrl({ client: c.clientId })}" id="client-audit">${t('console.clients.auditEvents')}</a></p>
${
  model.readOnly
    ? html`<p class="muted" id="read-only-note">${t('console.clients.readOnly')}</p>`
    : html`<section aria-labelledby="edit-heading"><h2 id="edit-heading">${t('console.clients.registration')}</h2>
${error('registration')}
<form method="post" action="${path}" id="edit-client-form">
${model.csrf}
${registrationFields(language, model.values, 'edit')}
<button type="submit">${t('console.clients.saveRegistration')}</button>
</form></section>
<section aria-labelledby="scopes-heading"><h2 id="scopes-heading">${t('console.clients.allowedScopes')}</h2>
${error('scopes')}
${scopesForm(model)}</section>
<section aria-labelledby="secret-section-heading"><h2 id="secret-section-heading">${t('console.clients.secret')}</h2>
${error('secret')}
${
  c.public || c.tokenEndpointAuthMethod === 'private_key_jwt'
    ? html`<p>${t('console.clients.noSecretToRotate')}</p>`
    : html`<form method="get" action="${path}/rotate" id="rotate-form">
<label for="grace">${t('console.clients.keepWorkingFor')}</label>
<select id="grace" name="grace">${GRACE_CHOICES.map((g) => html`<option value="${g.seconds}"${g.seconds === 86_400 ? html` selected` : ''}>${t(g.label)}</option>`)}</select>
<button type="submit" class="secondary">${t('console.clients.rotateStep')}</button>
</form>`
}</section>
<section aria-labelledby="remove-heading"><h2 id="remove-heading">${t('console.clients.remove')}</h2>
<p>${t('console.clients.removeIntro')}</p>
<p><a class="button danger" href="${path}/remove" id="remove-client">${t('console.clients.removeStep')}</a></p></section>`
}`;
}
