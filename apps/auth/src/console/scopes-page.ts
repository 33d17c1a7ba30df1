/**
 * The console's Scope policies page: each API scope with the groups it is restricted to (or open
 * to every user), a form to set a scope's groups and a link to lift a policy (confirmed first).
 * A read-only admin sees the table only.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import type { ScopePolicy } from '../policy/scope-policy-store.ts';
import type { PageLanguage } from '../i18n/page-language.ts';
import { formError, type FormError } from './clients-page.ts';
import { consoleTime } from '../views/console-time.ts';

export const SCOPES_PATH = '/admin/scopes';

export interface ScopesModel {
  language: PageLanguage;
  apiScopes: readonly string[];
  policies: ScopePolicy[];
  readOnly: boolean;
  csrf: SafeHtml;
  error?: FormError;
  /** The refused form's values, shown again. */
  values?: { scope: string; groups: string };
}

export function scopesBody(model: ScopesModel): SafeHtml {
  const { language } = model;
  const { t } = language;
  const byScope = new Map(model.policies.map((p) => [p.scope, p]));
  const rows = model.apiScopes.map((scope) => {
    const policy = byScope.get(scope);
    return html`<tr id="policy-${scope.replace(/[^a-z0-9]+/gi, '-')}">
<th scope="row"><code>${scope}</code></th>
<td>${policy ? policy.groups.join(', ') : html`<span class="muted">${t('console.scopes.everyUser')}</span>`}</td>
<td>${policy ? consoleTime(language, policy.updatedAt) : ''}</td>
${model.readOnly ? '' : html`<td>${policy ? html`<a href="${SCOPES_PATH}/${encodeURIComponent(scope)}/clear" aria-label="${t('console.scopes.liftTitle', { scope })}">${t('console.scopes.liftStep')}</a>` : ''}</td>`}
</tr>`;
  });
  return html`<h1>${t('console.nav.scopes')}</h1>
<p>${t('console.scopes.intro')}</p>
<div class="table-wrap" role="region" aria-label="${t('console.scopes.table')}" tabindex="0"><table id="policy-list">
<caption class="visually-hidden">${t('console.scopes.table')}</caption>
<thead><tr><th scope="col">${t('console.scopes.scope')}</th><th scope="col">${t('console.scopes.grantedTo')}</th><th scope="col">${t('console.scopes.changed')}</th>${model.readOnly ? '' : html`<th scope="col">${t('console.scopes.action')}</th>`}</tr></thead>
<tbody>${rows}</tbody>
</table></div>
${
  model.readOnly
    ? html`<p class="muted" id="read-only-note">${t('console.scopes.readOnly')}</p>`
    : html`<section aria-labelledby="set-policy-heading"><h2 id="set-policy-heading">${t('console.scopes.restrict')}</h2>
${formError(language, model.error, 'policy-error')}
<form method="post" action="${SCOPES_PATH}" id="policy-form">
${model.csrf}
<label for="scope">${t('console.scopes.scope')}</label>
<select id="scope" name="scope">${model.apiScopes.map((s) => html`<option value="${s}"${model.values?.scope === s ? html` selected` : ''}>${s}</option>`)}</select>
<label for="groups">${t('console.users.groups')}</label>
<input id="groups" name="groups" required maxlength="2100" value="${model.values?.groups ?? ''}" aria-describedby="groups-hint">
<p class="muted" id="groups-hint">${t('console.scopes.groupsHint')}</p>
<button type="submit">${t('console.scopes.save')}</button>
</form></section>`
}`;
}
