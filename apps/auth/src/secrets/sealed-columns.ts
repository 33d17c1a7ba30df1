/**
 * Every column that holds a secret sealed at rest (crypto/secret-box.ts), and reading them a
 * page at a time. Rules:
 * - this list is the one place that names them: the start-up check, `authctl secrets status`,
 *   `rekey` and `recover-lost-key` all go through it (storage/schema.ts: the `*_sealed` columns);
 * - sealed values that live only minutes are not listed: a sign-in in progress keeps its
 *   state in its interaction (oidc_payloads, AUTH_INTERACTION_TTL); it opens under any key of
 *   the ring, which is why a replaced key stays in the ring that long after a rekey;
 * - rows are read in primary-key order, `batchSize` at a time (keyset), so a large table is
 *   never held in memory and rows written meanwhile are not missed.
 */
import { sql, type Kysely } from 'kysely';
import type { AuthSchema } from '../storage/schema.ts';

export interface SealedColumn {
  table: 'accounts' | 'signing_keys' | 'clients' | 'identity_providers' | 'totp_enrollments';
  /** The table's primary key. */
  key: string;
  column: string;
  /** What the column holds, for people. */
  holds: string;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'signing_keys', key: 'kid', column: 'private_jwk_sealed', holds: 'private signing keys' },
  { table: 'accounts', key: 'id', column: 'totp_secret_sealed', holds: 'TOTP secrets' },
  { table: 'clients', key: 'client_id', column: 'client_secret_sealed', holds: 'client secrets' },
  { table: 'clients', key: 'client_id', column: 'previous_secret_sealed', holds: 'replaced client secrets in their grace period' },
  { table: 'identity_providers', key: 'slug', column: 'client_secret_sealed', holds: 'client secrets of upstream identity providers' },
  { table: 'identity_providers', key: 'slug', column: 'private_jwk_sealed', holds: 'private keys of upstream identity providers (private_key_jwt)' },
  { table: 'totp_enrollments', key: 'account_id', column: 'secret_sealed', holds: 'TOTP secrets being enrolled' },
  { table: 'totp_enrollments', key: 'account_id', column: 'recovery_codes_sealed', holds: 'recovery codes not yet confirmed saved' },
];

/** `table.column`, as messages name a column. */
export const columnName = (c: SealedColumn) => `${c.table}.${c.column}`;

export interface SealedRow {
  rowKey: string;
  sealed: string;
}

/**
 * Calls `visit` with the column's non-null values, a page at a time in key order. With
 * `exceptKeyId`, values already sealed under that key are left out (a rekey's remaining work);
 * with `legacyOnly`, only values that name no key.
 */
export async function forEachSealed(
  db: Kysely<AuthSchema>,
  c: SealedColumn,
  options: { batchSize: number; exceptKeyId?: string; legacyOnly?: boolean },
  visit: (rows: SealedRow[]) => Promise<void>,
): Promise<void> {
  const key = sql.ref(c.key);
  const column = sql.ref(c.column);
  // An exact prefix comparison: key ids are base64url, whose `_` a LIKE pattern would read as a wildcard.
  const skip = options.exceptKeyId === undefined ? sql`` : sql`and substr(${column}, 1, 12) <> ${`v2.${options.exceptKeyId}.`}`;
  const legacy = options.legacyOnly ? sql`and substr(${column}, 1, 3) <> 'v2.'` : sql``;
  let after: string | undefined;
  for (;;) {
    const from = after === undefined ? sql`` : sql`and ${key} > ${after}`;
    const { rows } = await sql<SealedRow>`select ${key} as "rowKey", ${column} as "sealed" from ${sql.table(c.table)}
      where ${column} is not null ${skip} ${legacy} ${from} order by ${key} limit ${options.batchSize}`.execute(db);
    if (rows.length === 0) return;
    await visit(rows);
    if (rows.length < options.batchSize) return;
    after = rows.at(-1)!.rowKey;
  }
}

/** How many values forEachSealed with `exceptKeyId` would visit now. */
export async function countSealed(db: Kysely<AuthSchema>, c: SealedColumn, exceptKeyId: string): Promise<number> {
  const column = sql.ref(c.column);
  const { rows } = await sql<{ n: number | string }>`select count(*) as "n" from ${sql.table(c.table)}
    where ${column} is not null and substr(${column}, 1, 12) <> ${`v2.${exceptKeyId}.`}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Replaces one sealed value only if it is still the one read (compare-and-set): a value a
 * running server changed meanwhile is left alone. True when the row was changed.
 */
export async function replaceSealed(db: Kysely<AuthSchema>, c: SealedColumn, row: SealedRow, sealed: string | null): Promise<boolean> {
  const result = await sql`update ${sql.table(c.table)} set ${sql.ref(c.column)} = ${sealed}
    where ${sql.ref(c.key)} = ${row.rowKey} and ${sql.ref(c.column)} = ${row.sealed}`.execute(db);
  return Number(result.numAffectedRows ?? 0) === 1;
}
