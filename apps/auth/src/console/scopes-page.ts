/**
 * The console's Scope policies page: each API scope with the groups it is restricted to (or open
 * to every user), a form to set a scope's groups and a link to lift a policy (confirmed first).
 * A read-only admin sees the table only.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import type { ScopePolicy } from '../policy/scope-policy-store.ts';
import { formError, type FormError } from './clients-page.ts';
import { consoleDate } from '../views/console-dashboard-page.ts';

export const SCOPES_PATH = '/admin/scopes';

export interface ScopesModel {
  apiScopes: readonly string[];
  policies: ScopePolicy[];
  readOnly: boolean;
  csrf: SafeHtml;
  error?: FormError;
  /** The refused form's values, shown again. */
  values?: { scope: string; groups: string };
}

export function scopesBody(model: ScopesModel): SafeHtml {
  const byScope = new Map(model.policies.map((p) => [p.scope, p]));
  const rows = model.apiScopes.map((scope) => {
    const policy = byScope.get(scope);
    return html`<tr id="policy-${scope.replace(/[^a-z0-9]+/gi, '-')}">
<th scope="row"><code>${scope}</code></th>
<td>${policy ? policy.groups.join(', ') : html`<span class="muted">every user</span>`}</td>
<td>${policy ? consoleDate(policy.updatedAt) : ''}</td>
${model.readOnly ? '' : html`<td>${policy ? html`<a href="${SCOPES_PATH}/${encodeURIComponent(scope)}/clear" aria-label="Lift the policy of ${scope}">Lift…</a>` : ''}</td>`}
</tr>`;
  });
  return html`<h1>Scope policies</h1>
<p>An API scope with a policy is granted only to users in one of its groups; a scope without one is open to every user. Admin scopes are fixed to group <code>admins</code>.</p>
<div class="table-wrap" role="region" aria-label="API scopes and their policies" tabindex="0"><table id="policy-list">
<caption class="visually-hidden">API scopes and their policies</caption>
<thead><tr><th scope="col">Scope</th><th scope="col">Granted to groups</th><th scope="col">Changed</th>${model.readOnly ? '' : html`<th scope="col">Action</th>`}</tr></thead>
<tbody>${rows}</tbody>
</table></div>
${
  model.readOnly
    ? html`<p class="muted" id="read-only-note">You have read-only access: you can see the policies but not change them.</p>`
    : html`<section aria-labelledby="set-policy-heading"><h2 id="set-policy-heading">Restrict a scope</h2>
${formError(model.error, 'policy-error')}
<form method="post" action="${SCOPES_PATH}" id="policy-form">
${model.csrf}
<label for="scope">Scope</label>
<select id="scope" name="scope">${model.apiScopes.map((s) => html`<option value="${s}"${model.values?.scope === s ? html` selected` : ''}>${s}</option>`)}</select>
<label for="groups">Groups</label>
<input id="groups" name="groups" required maxlength="2100" value="${model.values?.groups ?? ''}" aria-describedby="groups-hint">
<p class="muted" id="groups-hint">Comma-separated group names, e.g. <code>editors, admins</code>. They replace the scope's current groups.</p>
<button type="submit">Save the policy</button>
</form></section>`
}`;
}
