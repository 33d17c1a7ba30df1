/**
 * The console's Audit trail section (/admin/audit), on the query service authctl audit and
 * /admin/v1/audit-events use (audit/audit-trail.ts). Rules:
 * - the filters are query parameters with authctl's meanings: `user` (a username), `client`,
 *   `event` (a name or a prefix ending in `.`), `since` / `until` (ISO 8601 with a zone, or a
 *   duration back from now: 30m, 24h, 7d); `account` (an account id) is for links from a user's
 *   page; an empty parameter is no filter; `after` is the next page's cursor;
 * - 50 events a page, newest first; this instance's queued audit events are written first, so
 *   what the admin just did is listed;
 * - a refused filter shows the page with the message above the form and the values as typed,
 *   400, and queries nothing;
 * - events name accounts by their username when the account still exists (one lookup per
 *   account on the page), by id otherwise.
 */
import type { AccountStore } from '../accounts/account-store.ts';
import { AuditQueryError, type AuditQuery, type AuditTrail } from '../audit/audit-trail.ts';
import { parseTimeBound } from '../audit/time-bound.ts';
import { refusalText } from './console-refusal.ts';
import type { ConsoleSection } from './console-routes.ts';
import { AUDIT_FILTER_NAMES, AUDIT_PATH, auditBody, auditUrl, type AuditFilterValues } from './audit-page.ts';

export interface AuditSectionDeps {
  auditTrail: AuditTrail;
  accounts: Pick<AccountStore, 'findById'>;
  clock: () => number;
  /** Writes this instance's queued audit events. */
  flushAudit?: () => Promise<void>;
}

const PAGE_SIZE = 50;
const MAX_PARAM = 512;

function auditQuery(values: AuditFilterValues, after: string | undefined, now: number): AuditQuery {
  const query: AuditQuery = { limit: PAGE_SIZE };
  if (values.user) query.username = values.user;
  if (values.account) query.accountId = values.account;
  if (values.client) query.clientId = values.client;
  if (values.event) query.event = values.event;
  if (values.since) query.since = parseTimeBound(values.since, now, 'since');
  if (values.until) query.until = parseTimeBound(values.until, now, 'until');
  if (after) query.after = after;
  return query;
}

export const auditSection: ConsoleSection<AuditSectionDeps> = {
  nav: { key: 'audit', href: AUDIT_PATH },
  register(routes, deps) {
    routes.page(AUDIT_PATH, async (request) => {
      const params = request.ctx.URL.searchParams;
      const param = (name: string) => (params.get(name) ?? '').trim().slice(0, MAX_PARAM);
      const values = Object.fromEntries(AUDIT_FILTER_NAMES.map((name) => [name, param(name)])) as unknown as AuditFilterValues;
      const after = param('after') || undefined;
      let page;
      try {
        await deps.flushAudit?.();
        page = await deps.auditTrail.query(auditQuery(values, after, deps.clock()));
      } catch (error) {
        if (!(error instanceof AuditQueryError)) throw error;
        request.render({
          title: request.language.t('console.nav.audit'),
          status: 400,
          body: auditBody({ language: request.language, values, events: [], nextHref: null, usernames: new Map(), error: { code: error.code, message: refusalText(request.language, error.code, error.message), field: error.field } }),
        });
        return;
      }
      const ids = new Set<string>();
      for (const event of page.items) {
        if (event.accountId !== null) ids.add(event.accountId);
        if (event.actorKind === 'account' && event.actor !== null) ids.add(event.actor);
      }
      if (values.account) ids.add(values.account);
      const usernames = new Map<string, string>();
      for (const id of ids) {
        const account = await deps.accounts.findById(id);
        if (account) usernames.set(id, account.username);
      }
      request.render({
        title: request.language.t('console.nav.audit'),
        body: auditBody({ language: request.language, values, events: page.items, nextHref: page.next ? auditUrl(values, page.next) : null, usernames }),
      });
    });
  },
};
