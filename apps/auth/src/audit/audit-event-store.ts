/**
 * The stored audit trail (table `audit_events`). Rules:
 * - append keeps the order it is given: within one call the rows get growing ids in array order;
 * - a page is newest first by (occurred_at, id) and continues strictly before a position, so a
 *   page boundary inside one millisecond loses and repeats nothing;
 * - `user` matches an event of the account (account_id) or naming the typed username (login
 *   failures of a name with no account); an event filter is an exact name or a prefix ending in `.`;
 * - `since` is inclusive, `until` exclusive (epoch ms);
 * - on a SQLite file an append commits without waiting for the disk on the event loop and resolves
 *   once the log is synced in libuv's pool (Database.deferredSync): as durable as a normal commit
 *   when it resolves, without holding every request of the process for the fsync of each batch
 *   (bench/README.md, "Token path").
 */
import { precompileSql, type DeferredSync, type Engine, type QueryRunner } from '@gatehouse/db';
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
  /** The request that caused the event (X-Request-Id), null (or absent) outside a request (authctl). */
  requestId?: string | null;
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
  /** How many events of each of these names occurred at or after `sinceMs` (a name with none is 0); the admin console's dashboard. */
  countSince(events: readonly string[], sinceMs: number): Promise<Record<string, number>>;
}

/** The stored columns, in the order of {@link rowValues}. */
const COLUMNS = ['occurred_at', 'event', 'account_id', 'username', 'client_id', 'actor_kind', 'actor', 'ip', 'fields', 'request_id'] as const;

/** A record's values, in the order of {@link COLUMNS}. */
function rowValues(r: AuditRecord): unknown[] {
  return [r.occurredAt, r.event, r.accountId, r.username, r.clientId, r.actorKind, r.actor, r.ip, JSON.stringify(r.fields), r.requestId ?? null];
}

/**
 * PostgreSQL: one statement for any batch (one round trip): the rows come as one JSON array of
 * arrays (parameter 1), inserted in array order; fixed text, so one prepared statement serves every
 * batch size.
 */
function appendJsonSql(): string {
  const values = COLUMNS.map((name, i) => (name === 'occurred_at' ? `(r.v ->> ${i})::bigint` : `r.v ->> ${i}`)).join(', ');
  return `insert into audit_events (${COLUMNS.join(', ')}) select ${values} from json_array_elements($1::json) with ordinality as r(v, n) order by r.n`;
}

/**
 * SQLite: one prepared insert of one row, run for each row of a batch in one transaction: SQLite
 * has no round trip to save, and taking a JSON text apart cost it more than the inserts.
 */
function appendRowSql(): string {
  return `insert into audit_events (${COLUMNS.join(', ')}) values (${COLUMNS.map((_, i) => `?${i + 1}`).join(', ')})`;
}

/** `deferredSync`: SQLite on a file (Database.deferredSync); without it every append is a normal commit. */
export function createAuditEventStore(db: Kysely<AuthSchema>, engine: Engine, deferredSync?: DeferredSync): AuditEventStore {
  // Run for every batch of the sink (about every 100 ms under load): built once, not per batch.
  const insert = precompileSql(db, engine === 'postgres' ? appendJsonSql() : appendRowSql());
  const insertEach = async (records: readonly AuditRecord[], trx: QueryRunner) => {
    for (const record of records) await insert(rowValues(record), trx);
  };
  return {
    async append(records) {
      if (records.length === 0) return;
      if (engine === 'postgres') {
        await insert([JSON.stringify(records.map(rowValues))]);
        return;
      }
      if (!deferredSync) {
        await db.transaction().execute((trx) => insertEach(records, trx));
        return;
      }
      await deferredSync.transaction((trx) => insertEach(records, trx));
      await deferredSync.sync();
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
        requestId: row.request_id,
        fields: JSON.parse(row.fields) as StoredAuditEvent['fields'],
      }));
    },

    async countSince(events, sinceMs) {
      const counts: Record<string, number> = Object.fromEntries(events.map((event) => [event, 0]));
      if (events.length === 0) return counts;
      const rows = await db
        .selectFrom('audit_events')
        .select(['event', (eb) => eb.fn.countAll<string | number>().as('n')])
        .where('event', 'in', [...events])
        .where('occurred_at', '>=', sinceMs)
        .groupBy('event')
        .execute();
      for (const row of rows) counts[row.event] = Number(row.n);
      return counts;
    },

    async purgeBefore(ms) {
      const result = await db.deleteFrom('audit_events').where('occurred_at', '<', ms).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
