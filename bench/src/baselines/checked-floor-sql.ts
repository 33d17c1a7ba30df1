/**
 * The checked floor's tables and statements, shared by both engines (checked-floor.ts has its
 * rules): apps/auth's keys and indexes (storage/migrations.ts), not its every column.
 */
import type { AuditRow, ModelRow, TokenWithRelated } from './checked-floor.ts';
import type { TokenRow } from './floor-adapter.ts';

export const PAYLOADS = 'bench_checked_payloads';
export const ACCOUNTS = 'bench_checked_accounts';
export const AUDIT = 'bench_checked_audit';

/** The tables with their indexes; `id` is the audit table's key column (an autoincrement on each engine). */
export function schema(auditKey: string): string[] {
  return [
    `create table if not exists ${PAYLOADS} (model text not null, id text not null, payload text not null, grant_id text, uid text, account_id text, session_uid text, expires_at bigint, consumed_at bigint, primary key (model, id))`,
    `create index if not exists ${PAYLOADS}_grant_id on ${PAYLOADS} (grant_id)`,
    `create index if not exists ${PAYLOADS}_expires_at on ${PAYLOADS} (expires_at)`,
    `create index if not exists ${PAYLOADS}_uid on ${PAYLOADS} (uid) where uid is not null`,
    `create table if not exists ${ACCOUNTS} (id text primary key, disabled_at bigint)`,
    `create table if not exists ${AUDIT} (${auditKey}, occurred_at bigint not null, event text not null, account_id text, username text, client_id text, fields text not null)`,
    `create index if not exists ${AUDIT}_time on ${AUDIT} (occurred_at, id)`,
    `create index if not exists ${AUDIT}_event_time on ${AUDIT} (event, occurred_at, id)`,
    ...['account_id', 'username', 'client_id'].map((column) => `create index if not exists ${AUDIT}_${column}_time on ${AUDIT} (${column}, occurred_at, id) where ${column} is not null`),
  ];
}

/** The presented token (parameter `param`) with its Grant, its Session and its account: one row. */
export function tokenWithRelatedSql(param: string): string {
  const columns = ['r', 'g', 's'].flatMap((alias) => ['payload', 'consumed_at', 'expires_at'].map((column) => `${alias}.${column} as ${alias}_${column}`));
  return (
    `select ${columns.join(', ')}, a.id as a_id, a.disabled_at as a_disabled_at from ${PAYLOADS} r ` +
    `left join ${PAYLOADS} g on g.model = 'Grant' and g.id = r.grant_id ` +
    `left join ${PAYLOADS} s on s.model = 'Session' and s.uid = r.session_uid ` +
    `left join ${ACCOUNTS} a on a.id = r.account_id ` +
    `where r.model = 'RefreshToken' and r.id = ${param}`
  );
}

type Cell = string | number | bigint | null;

const time = (value: Cell | undefined): number | null => (value === null || value === undefined ? null : Number(value));

function part(row: Record<string, Cell>, alias: string): TokenRow | undefined {
  const payload = row[`${alias}_payload`];
  return typeof payload === 'string' ? { payload, consumedAt: time(row[`${alias}_consumed_at`]), expiresAt: time(row[`${alias}_expires_at`]) } : undefined;
}

/** A joined row as the adapter takes it. */
export function tokenWithRelated(row: Record<string, Cell> | undefined): TokenWithRelated | undefined {
  const token = row && part(row, 'r');
  if (!row || !token) return undefined;
  return { token, grant: part(row, 'g'), session: part(row, 's'), account: row.a_id === null ? undefined : { disabledAt: time(row.a_disabled_at) } };
}

/** A payload row's values in the order of {@link INSERT_COLUMNS}. */
export const INSERT_COLUMNS = ['model', 'id', 'payload', 'grant_id', 'uid', 'account_id', 'session_uid', 'expires_at'] as const;
export const insertValues = (model: string, row: ModelRow): Cell[] => [model, row.id, row.payload, row.grantId, row.uid, row.accountId, row.sessionUid, row.expiresAt];

export const AUDIT_COLUMNS = ['occurred_at', 'event', 'client_id', 'fields'] as const;
export const auditValues = (row: AuditRow): Cell[] => [row.occurredAt, row.event, row.clientId, row.fields];
