/**
 * Reading the audit trail: one query service for authctl and the admin API. Rules:
 * - filters: `username` (events of that account, and events naming that typed username, e.g.
 *   failed logins; a name without an account finds only the latter), `accountId`, `clientId`,
 *   `event` (an exact name, or a prefix ending in `.` such as `login.`), `since` (inclusive) and
 *   `until` (exclusive), epoch ms; every given filter applies (AND);
 * - newest first, `limit` 1..200 (default 50); `next` is an opaque cursor continuing after the
 *   last item (audit-cursor.ts), null on the last page;
 * - bad input is an AuditQueryError with a stable code and the offending field, never a query.
 */
import { CodedError } from '../errors/coded-error.ts';
import { decodeAuditCursor, encodeAuditCursor } from './audit-cursor.ts';
import type { AuditEventFilter, AuditEventStore, StoredAuditEvent } from './audit-event-store.ts';

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

export type AuditQueryErrorCode = 'invalid_cursor' | 'invalid_limit' | 'invalid_event' | 'invalid_time' | 'invalid_filter';

/**
 * A refused query: `field` names the parameter (after, limit, event, since, until, user, client),
 * `reason` says what is wrong with it ("must be ..."); the message is both.
 */
export class AuditQueryError extends CodedError<AuditQueryErrorCode> {
  readonly field: string;
  readonly reason: string;
  constructor(code: AuditQueryErrorCode, field: string, reason: string) {
    super(code, `${field} ${reason}`);
    this.field = field;
    this.reason = reason;
  }
}

export interface AuditQuery {
  username?: string;
  accountId?: string;
  clientId?: string;
  /** An exact event name, or a prefix ending in `.`. */
  event?: string;
  since?: number;
  until?: number;
  limit?: number;
  /** The `next` cursor of the previous page. */
  after?: string;
}

export interface AuditPage {
  items: StoredAuditEvent[];
  next: string | null;
}

export interface AuditTrail {
  query(query: AuditQuery): Promise<AuditPage>;
}

export interface AuditTrailDeps {
  events: Pick<AuditEventStore, 'list'>;
  /** The account of a username (the account store's lookup): the trail needs only its id. */
  accounts: { findByUsername(username: string): Promise<{ readonly id: string } | undefined> };
}

const EVENT = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*\.?$/;

function nonEmpty(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '' || value.length > 256) throw new AuditQueryError('invalid_filter', field, 'must be 1 to 256 characters');
  return value;
}

function eventFilter(event: string | undefined): AuditEventFilter['event'] {
  if (event === undefined) return undefined;
  if (event.length > 100 || !EVENT.test(event)) {
    throw new AuditQueryError('invalid_event', 'event', 'must be an event name (login.password.failure) or a prefix ending in "." (login.)');
  }
  return event.endsWith('.') ? { prefix: event } : { exact: event };
}

function time(value: number | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) throw new AuditQueryError('invalid_time', field, 'must be a time');
  return value;
}

export function createAuditTrail(deps: AuditTrailDeps): AuditTrail {
  return {
    async query(query) {
      const limit = query.limit ?? AUDIT_PAGE_DEFAULT;
      if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX) {
        throw new AuditQueryError('invalid_limit', 'limit', `must be a whole number from 1 to ${AUDIT_PAGE_MAX}`);
      }
      const before = query.after === undefined ? undefined : decodeAuditCursor(query.after);
      if (query.after !== undefined && !before) throw new AuditQueryError('invalid_cursor', 'after', 'is not a cursor this server issued');
      const since = time(query.since, 'since');
      const until = time(query.until, 'until');
      if (since !== undefined && until !== undefined && since >= until) throw new AuditQueryError('invalid_time', 'until', 'must be later than since');
      const filter: AuditEventFilter = { limit: limit + 1 };
      const username = nonEmpty(query.username, 'user');
      const accountId = nonEmpty(query.accountId, 'user');
      if (username !== undefined || accountId !== undefined) {
        // Both given: the account must be the named one (an id and a name of different accounts find nothing).
        const account = username === undefined ? undefined : await deps.accounts.findByUsername(username);
        if (username !== undefined && accountId !== undefined && account?.id !== accountId) return { items: [], next: null };
        filter.user = {
          ...(accountId !== undefined || account ? { accountId: accountId ?? account!.id } : {}),
          ...(username !== undefined ? { username: username.toLowerCase() } : {}),
        };
      }
      const clientId = nonEmpty(query.clientId, 'client');
      if (clientId !== undefined) filter.clientId = clientId;
      const event = eventFilter(query.event);
      if (event) filter.event = event;
      if (since !== undefined) filter.since = since;
      if (until !== undefined) filter.until = until;
      if (before) filter.before = before;
      const rows = await deps.events.list(filter);
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return { items, next: rows.length > limit && last ? encodeAuditCursor(last) : null };
    },
  };
}
