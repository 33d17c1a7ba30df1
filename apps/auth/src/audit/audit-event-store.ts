/**
 * The stored audit trail (table `audit_events`). Rules:
 * - append keeps the order it is given: within one call the rows get growing ids in array order;
 * - a page is newest first by (occurred_at, id) and continues strictly before a position, so a
 *   page boundary inside one millisecond loses and repeats nothing;
 * - `user` matches an event of the account (account_id) or naming the typed username (login
 *   failures of a name with no account); an event filter is an exact name or a prefix ending in `.`;
 * - `since` is inclusive, `until` exclusive (epoch ms).
 */
import { sql, type Kysely } from 'kysely';
import type { AuthSchema } from '../storage/schema.ts';

/** One audit event as stored: the filterable identifiers, and the other fields. */
export interface AuditRecord {
  occurredAt: number;
  event: string;
  accountId: string | null;
  username: string | null;
  clientId: string | null;
  actorKind: string | null;
  actor: string | null;
  ip: string | null;
  fields: Readonly<Record<string, string | number | boolean>>;
}

export interface StoredAuditEvent extends AuditRecord {
  id: number;
}

/** A position in the trail: the page continues with the events before it. */
export interface AuditPosition {
  occurredAt: number;
  id: number;
}

export interface AuditEventFilter {
  /** Events of this account or naming this (lower-cased) username; at least one of the two. */
  user?: { accountId?: string; username?: string };
  clientId?: string;
  event?: { exact: string } | { prefix: string };
  since?: number;
  until?: number;
  before?: AuditPosition;
  limit: number;
}

export interface AuditEventStore {
  append(records: readonly AuditRecord[]): Promise<void>;
  /** Newest first, at most `limit`. */
  list(filter: AuditEventFilter): Promise<StoredAuditEvent[]>;
  /** Deletes events that occurred before ms; returns how many. */
  purgeBefore(ms: number): Promise<number>;
}

export function createAuditEventStore(db: Kysely<AuthSchema>): AuditEventStore {
  return {
    async append(records) {
      if (records.length === 0) return;
      await db
        .insertInto('audit_events')
        .values(
          records.map((r) => ({
            occurred_at: r.occurredAt,
            event: r.event,
            account_id: r.accountId,
            username: r.username,
            client_id: r.clientId,
            actor_kind: r.actorKind,
            actor: r.actor,
            ip: r.ip,
            fields: JSON.stringify(r.fields),
          })),
        )
        .execute();
    },

    async list(filter) {
      let query = db.selectFrom('audit_events').selectAll();
      const { user, event, before } = filter;
      if (user) {
        query = query.where((eb) =>
          eb.or([
            ...(user.accountId !== undefined ? [eb('account_id', '=', user.accountId)] : []),
            ...(user.username !== undefined ? [eb('username', '=', user.username)] : []),
          ]),
        );
      }
      if (filter.clientId !== undefined) query = query.where('client_id', '=', filter.clientId);
      if (event && 'exact' in event) query = query.where('event', '=', event.exact);
      // substr, not LIKE: exact bytes on both engines (SQLite's LIKE ignores case, `_` is a wildcard).
      if (event && 'prefix' in event) query = query.where(sql<string>`substr(event, 1, ${sql.lit(event.prefix.length)})`, '=', event.prefix);
      if (filter.since !== undefined) query = query.where('occurred_at', '>=', filter.since);
      if (filter.until !== undefined) query = query.where('occurred_at', '<', filter.until);
      if (before) {
        query = query.where((eb) =>
          eb.or([eb('occurred_at', '<', before.occurredAt), eb.and([eb('occurred_at', '=', before.occurredAt), eb('id', '<', before.id)])]),
        );
      }
      const rows = await query.orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
      return rows.map((row) => ({
        id: Number(row.id),
        occurredAt: Number(row.occurred_at),
        event: row.event,
        accountId: row.account_id,
        username: row.username,
        clientId: row.client_id,
        actorKind: row.actor_kind,
        actor: row.actor,
        ip: row.ip,
        fields: JSON.parse(row.fields) as StoredAuditEvent['fields'],
      }));
    },

    async purgeBefore(ms) {
      const result = await db.deleteFrom('audit_events').where('occurred_at', '<', ms).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
