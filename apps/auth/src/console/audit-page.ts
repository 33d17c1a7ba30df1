/**
 * The console's Audit trail page: a filter form (GET, so a filtered view is a link) with the
 * filters `authctl audit` has, the events newest first, and a link to the next page that keeps the
 * filters. Each event links to its user's page (Users section) and its client's page; an event
 * made by an admin names the admin and links to them. A refused filter is shown above the form,
 * with the values as typed.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import type { StoredAuditEvent } from '../audit/audit-event-store.ts';
import type { PageLanguage } from '../i18n/page-language.ts';
import { formError, type FormError } from './clients-page.ts';
import { clientUrl, CONSOLE_PATH, userUrl } from './console-paths.ts';
import { consoleTime } from '../views/console-time.ts';

export const AUDIT_PATH = `${CONSOLE_PATH}/audit`;

/** The filters as the form and the links carry them (query parameter names). */
export interface AuditFilterValues {
  user: string;
  account: string;
  client: string;
  event: string;
  since: string;
  until: string;
}

export const AUDIT_FILTER_NAMES = ['user', 'account', 'client', 'event', 'since', 'until'] as const satisfies readonly (keyof AuditFilterValues)[];

/** The trail page's URL with these filters (empty ones left out) and, for a next page, the cursor. */
export function auditUrl(values: Partial<AuditFilterValues>, after?: string): string {
  const query = new URLSearchParams();
  for (const name of AUDIT_FILTER_NAMES) {
    const value = values[name];
    if (value) query.set(name, value);
  }
  if (after) query.set('after', after);
  const search = query.toString();
  return search ? `${AUDIT_PATH}?${search}` : AUDIT_PATH;
}

export interface AuditModel {
  language: PageLanguage;
  values: AuditFilterValues;
  events: StoredAuditEvent[];
  nextHref: string | null;
  /** Account id → username, for the accounts the page names (absent: removed or unknown). */
  usernames: ReadonlyMap<string, string>;
  error?: FormError;
}

function fieldsText(event: StoredAuditEvent): string {
  return Object.entries(event.fields)
    .map(([name, value]) => `${name}=${String(value)}`)
    .join(' ');
}

function accountLink(accountId: string, usernames: ReadonlyMap<string, string>): SafeHtml {
  return html`<a href="${userUrl(accountId)}">${usernames.get(accountId) ?? accountId}</a>`;
}

function actorCell(language: PageLanguage, event: StoredAuditEvent, usernames: ReadonlyMap<string, string>): SafeHtml | string {
  if (event.actorKind === null || event.actor === null) return '—';
  switch (event.actorKind) {
    case 'account':
      return language.t('console.audit.byAdmin', { admin: accountLink(event.actor, usernames) });
    case 'client':
      return language.t('console.audit.byClient', { client: html`<a href="${clientUrl(event.actor)}">${event.actor}</a>` });
    default:
      return `${event.actorKind} ${event.actor}`;
  }
}

function userCell(language: PageLanguage, event: StoredAuditEvent, usernames: ReadonlyMap<string, string>): SafeHtml | string {
  if (event.accountId !== null) return accountLink(event.accountId, usernames);
  if (event.username !== null) return html`<span title="${language.t('console.audit.typedUsername')}">${event.username}</span>`;
  return '—';
}

function input(name: keyof AuditFilterValues, label: string, value: string, hint?: string): SafeHtml {
  return html`<div class="filter"><label for="filter-${name}">${label}</label>
<input id="filter-${name}" name="${name}" value="${value}" maxlength="256"${hint ? html` aria-describedby="filter-${name}-hint"` : ''}>
${hint ? html`<p class="muted" id="filter-${name}-hint">${hint}</p>` : ''}</div>`;
}

export function auditBody(model: AuditModel): SafeHtml {
  const { language } = model;
  const { t } = language;
  const v = model.values;
  const rows = model.events.map(
    (e) => html`<tr data-event="${e.event}">
<td>${consoleTime(language, e.occurredAt)}</td>
<td><code>${e.event}</code></td>
<td>${userCell(language, e, model.usernames)}</td>
<td>${e.clientId === null ? '—' : html`<a href="${clientUrl(e.clientId)}">${e.clientId}</a>`}</td>
<td>${actorCell(language, e, model.usernames)}</td>
<td>${e.ip ?? '—'}</td>
<td class="fields">${fieldsText(e)}</td>
</tr>`,
  );
  return html`<h1>${t('console.nav.audit')}</h1>
${formError(language, model.error, 'filter-error')}
<form method="get" action="${AUDIT_PATH}" id="audit-filter" class="filters">
${input('user', t('console.audit.user'), v.user, t('console.audit.userHint'))}
${v.account ? html`<input type="hidden" name="account" value="${v.account}">` : ''}
${input('client', t('console.audit.client'), v.client)}
${input('event', t('console.audit.event'), v.event, t('console.audit.eventHint'))}
${input('since', t('console.audit.since'), v.since, t('console.audit.sinceHint'))}
${input('until', t('console.audit.until'), v.until)}
<p><button type="submit">${t('console.audit.filter')}</button> <a href="${AUDIT_PATH}" id="clear-filters">${t('console.audit.clear')}</a></p>
</form>
${v.account ? html`<p id="account-filter">${t('console.audit.ofAccount', { account: html`<code>${model.usernames.get(v.account) ?? v.account}</code>` })}</p>` : ''}
${
  model.events.length === 0
    ? html`<p id="no-events">${model.error ? t('console.audit.notSearched') : t('console.audit.noEvents')}</p>`
    : html`<div class="table-wrap" role="region" aria-label="${t('console.audit.events')}" tabindex="0"><table id="audit-list">
<caption class="visually-hidden">${t('console.audit.caption')}</caption>
<thead><tr><th scope="col">${t('console.audit.time')}</th><th scope="col">${t('console.audit.event')}</th><th scope="col">${t('console.audit.user')}</th><th scope="col">${t('console.audit.client')}</th><th scope="col">${t('console.audit.by')}</th><th scope="col">${t('console.audit.ip')}</th><th scope="col">${t('console.audit.details')}</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}
${model.nextHref ? html`<p><a href="${model.nextHref}" rel="next" id="next-page">${t('console.audit.older')}</a></p>` : ''}`;
}
