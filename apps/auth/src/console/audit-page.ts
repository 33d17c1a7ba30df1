/**
 * The console's Audit trail page: a filter form (GET, so a filtered view is a link) with the
 * filters `authctl audit` has, the events newest first, and a link to the next page that keeps the
 * filters. Each event links to its user's page (Users section) and its client's page; an event
 * made by an admin names the admin and links to them. A refused filter is shown above the form,
 * with the values as typed.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import type { StoredAuditEvent } from '../audit/audit-event-store.ts';
import { formError, type FormError } from './clients-page.ts';
import { clientUrl, CONSOLE_PATH, userUrl } from './console-paths.ts';
import { consoleDate } from '../views/console-dashboard-page.ts';

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

function actorCell(event: StoredAuditEvent, usernames: ReadonlyMap<string, string>): SafeHtml | string {
  if (event.actorKind === null || event.actor === null) return '—';
  switch (event.actorKind) {
    case 'account':
      return html`admin ${accountLink(event.actor, usernames)}`;
    case 'client':
      return html`client <a href="${clientUrl(event.actor)}">${event.actor}</a>`;
    default:
      return `${event.actorKind} ${event.actor}`;
  }
}

function userCell(event: StoredAuditEvent, usernames: ReadonlyMap<string, string>): SafeHtml | string {
  if (event.accountId !== null) return accountLink(event.accountId, usernames);
  if (event.username !== null) return html`<span title="typed username, no account">${event.username}</span>`;
  return '—';
}

function input(name: keyof AuditFilterValues, label: string, value: string, hint?: string): SafeHtml {
  return html`<div class="filter"><label for="filter-${name}">${label}</label>
<input id="filter-${name}" name="${name}" value="${value}" maxlength="256"${hint ? html` aria-describedby="filter-${name}-hint"` : ''}>
${hint ? html`<p class="muted" id="filter-${name}-hint">${hint}</p>` : ''}</div>`;
}

export function auditBody(model: AuditModel): SafeHtml {
  const v = model.values;
  const rows = model.events.map(
    (e) => html`<tr data-event="${e.event}">
<td>${consoleDate(e.occurredAt)}</td>
<td><code>${e.event}</code></td>
<td>${userCell(e, model.usernames)}</td>
<td>${e.clientId === null ? '—' : html`<a href="${clientUrl(e.clientId)}">${e.clientId}</a>`}</td>
<td>${actorCell(e, model.usernames)}</td>
<td>${e.ip ?? '—'}</td>
<td class="fields">${fieldsText(e)}</td>
</tr>`,
  );
  return html`<h1>Audit trail</h1>
${formError(model.error, 'filter-error')}
<form method="get" action="${AUDIT_PATH}" id="audit-filter" class="filters">
${input('user', 'User', v.user, 'A username: their events and failed sign-ins naming it.')}
${v.account ? html`<input type="hidden" name="account" value="${v.account}">` : ''}
${input('client', 'Client', v.client)}
${input('event', 'Event', v.event, 'A name (login.password.failure) or a prefix ending in a dot (login.).')}
${input('since', 'Since', v.since, 'ISO 8601 with a zone (2026-11-23T10:00:00Z) or back from now (30m, 24h, 7d).')}
${input('until', 'Until', v.until)}
<p><button type="submit">Filter</button> <a href="${AUDIT_PATH}" id="clear-filters">Clear the filters</a></p>
</form>
${v.account ? html`<p id="account-filter">Showing the events of account <code>${model.usernames.get(v.account) ?? v.account}</code>.</p>` : ''}
${
  model.events.length === 0
    ? html`<p id="no-events">${model.error ? 'Nothing was searched: correct the filter above.' : 'No audit events match these filters.'}</p>`
    : html`<div class="table-wrap" role="region" aria-label="Audit events" tabindex="0"><table id="audit-list">
<caption class="visually-hidden">Audit events, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">User</th><th scope="col">Client</th><th scope="col">By</th><th scope="col">IP</th><th scope="col">Details</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}
${model.nextHref ? html`<p><a href="${model.nextHref}" rel="next" id="next-page">Older events</a></p>` : ''}`;
}
