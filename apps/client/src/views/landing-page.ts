import type { ApiProblem, Item } from '../api-client/api-client.ts';
import type { Flash, SessionUser } from '../sessions/session-data.ts';
import { html, type SafeHtml } from '@gatehouse/html';
import type { PageLanguage } from '../i18n/page-language.ts';
import { layout } from './layout.ts';

export interface LandingPageModel {
  appName: string;
  /** The user's account page at the authorization server, naming this app as the way back. */
  accountUrl: string;
  user: SessionUser;
  sessionExpiresAt: number;
  accessTokenExpiresAt: number;
  scope: string;
  csrf: string;
  collection: string;
  itemField: string;
  items: { ok: true; value: Item[] } | { ok: false; problem: ApiProblem };
  flash?: Flash;
  /** The page's language (i18n/page-language.ts). */
  language: PageLanguage;
  /** Now, by the app's clock: the times are shown relative to it. */
  now: number;
}

export const problemText = (problem: ApiProblem, language: PageLanguage): string =>
  language.t('landing.problem', { status: problem.status, title: problem.title, detail: problem.detail, code: problem.code });

function itemsSection(model: LandingPageModel): SafeHtml {
  const { t } = model.language;
  if (!model.items.ok) {
    return html`<p class="error" role="alert" id="items-error">${t('landing.listFailed', { collection: model.collection })} ${problemText(model.items.problem, model.language)}</p>`;
  }
  const items = model.items.value;
  const fields = [...new Set(items.flatMap((item) => Object.keys(item).filter((k) => k !== 'id')))];
  const nextId = items.reduce((max, item) => Math.max(max, item.id), 0) + 1;
  const rows = items.map(
    (item) => html`<tr data-id="${item.id}">
<td>${item.id}</td>${fields.map((f) => html`<td>${item[f] === undefined || item[f] === null ? '' : String(item[f])}</td>`)}
<td><form method="post" action="/items/${item.id}/delete"><input type="hidden" name="_csrf" value="${model.csrf}"><button type="submit" class="small danger" aria-label="${t('landing.deleteLabel', { collection: model.collection, id: item.id })}">${t('landing.delete')}</button></form></td>
</tr>`,
  );
  return html`<div class="table-wrap"><table id="items">
<thead><tr><th>id</th>${fields.map((f) => html`<th>${f}</th>`)}<th></th></tr></thead>
<tbody>${rows}</tbody>
</table></div>
${items.length === 0 ? html`<p class="muted" id="items-empty">${t('landing.none', { collection: model.collection })}</p>` : ''}
<form method="post" action="/items" class="inline" id="add-item">
<input type="hidden" name="_csrf" value="${model.csrf}">
<label>id <input name="id" type="number" min="1" step="1" required value="${nextId}"></label>
<label>${model.itemField} <input name="value" required maxlength="200"></label>
<button type="submit">${t('landing.add')}</button>
</form>`;
}

/** The landing page: who is signed in, the session and token lifetimes, and the API collection. */
export function landingPage(model: LandingPageModel): string {
  const { user, language, now } = model;
  const { t } = language;
  const time = (ms: number) => language.relative(ms, now);
  return layout({
    appName: model.appName,
    title: t('landing.title'),
    language,
    body: html`<h1>${t('landing.welcome')} <span id="user-name">${user.name ?? user.sub}</span></h1>
${model.flash ? html`<p class="${model.flash.kind === 'error' ? 'error' : 'notice'}" role="${model.flash.kind === 'error' ? 'alert' : 'status'}" id="flash">${model.flash.text}</p>` : ''}
<dl class="facts">
<dt>${t('landing.email')}</dt><dd id="user-email">${user.email ?? '—'}</dd>
<dt>${t('landing.groups')}</dt><dd id="user-groups">${user.groups.length ? user.groups.join(', ') : '—'}</dd>
<dt>${t('landing.subject')}</dt><dd><code id="user-sub">${user.sub}</code></dd>
<dt>${t('landing.sessionExpires')}</dt><dd id="session-expires">${time(model.sessionExpiresAt)}</dd>
<dt>${t('landing.tokenExpires')}</dt><dd id="token-expires">${time(model.accessTokenExpiresAt)}</dd>
<dt>${t('landing.tokenScopes')}</dt><dd id="token-scope">${model.scope}</dd>
</dl>
<h2>${model.collection}</h2>
${itemsSection(model)}
<p><a href="${model.accountUrl}" id="manage-account">${t('landing.manageAccount')}</a></p>
<form method="post" action="/logout" class="logout">
<input type="hidden" name="_csrf" value="${model.csrf}">
<button type="submit" id="logout" class="secondary">${t('landing.signOut')}</button>
</form>`,
  });
}
