import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { QueryResult, SqliteDatabase, SqliteStatement } from 'kysely';

type Params = readonly unknown[];
type SqliteValue = null | number | bigint | string | Uint8Array;

/** Binds Kysely's parameters to a node:sqlite statement: it takes only null, numbers, bigints, strings and bytes. */
export function bindParameters(params: Params): SqliteValue[] {
  return params.map((value) => {
    if (value === undefined || value === null) return null;
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value instanceof Date) return value.getTime();
    return value as SqliteValue;
  });
}

// `onWrite` runs after a statement that may have changed the database (anything but a SELECT).
function wrapStatement(statement: StatementSync, onWrite: () => void): SqliteStatement {
  const reader = statement.columns().length > 0;
  const writes = !/^\s*select\b/i.test(statement.sourceSQL);
  return {
    reader,
    all: (params: Params) => {
      try {
        return statement.all(...bindParameters(params)) as unknown[];
      } finally {
        if (writes) onWrite();
      }
    },
    run: (params: Params) => {
      try {
        const result = statement.run(...bindParameters(params));
        return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
      } finally {
        if (writes) onWrite();
      }
    },
    iterate: (params: Params) => statement.iterate(...bindParameters(params)) as IterableIterator<unknown>,
  };
}

/** Prepared statements kept per database: the distinct SQL texts of an app are a few dozen. */
export const STATEMENT_CACHE_SIZE = 256;

/**
 * Adapts Node's built-in `node:sqlite` to the statement interface Kysely's SqliteDialect expects,
 * so the embedded engine needs no native build.
 *
 * Statements are prepared once per SQL text and kept (least recently used dropped past
 * {@link STATEMENT_CACHE_SIZE}): compiling the SQL cost more than running it on every request.
 * Reuse is safe because node:sqlite runs a statement to completion inside `all`/`run`, and
 * Kysely's SQLite driver runs one query at a time on its single connection; a streaming query
 * (`iterate`), which stays open across awaits, gets a statement of its own.
 */
export interface OpenSqlite extends SqliteDatabase {
  /** How many statements other than SELECT this connection has run (a transaction's COMMIT included). */
  writes(): number;
  /** This connection's `PRAGMA data_version`: it moves when another connection commits, never for its own commits. */
  dataVersion(): number;
  /** Whether a transaction is open on the connection (BEGIN run, COMMIT or ROLLBACK not yet). */
  inTransaction(): boolean;
  /**
   * Runs one statement through the statement cache and answers what Kysely's SQLite driver
   * answers for it: its rows when it returns columns, else the rows changed and the last insert id.
   */
  execute(sql: string, parameters: readonly unknown[]): QueryResult<unknown>;
}

/** Kysely's answer for a statement run with these parameters (as its SqliteConnection gives it). */
function executeStatement(statement: SqliteStatement, parameters: readonly unknown[]): QueryResult<unknown> {
  if (statement.reader) return { rows: statement.all(parameters) as unknown[] };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { insertId: lastInsertRowid === undefined || lastInsertRowid === null ? undefined : BigInt(lastInsertRowid), numAffectedRows: changes === undefined || changes === null ? undefined : BigInt(changes), rows: [] };
}

export function openSqlite(path: string): OpenSqlite {
  const db = new DatabaseSync(path);
  let writes = 0;
  const onWrite = () => {
    writes++;
  };
  // WAL lets the operator CLI write while the server reads; busy_timeout waits out short write locks.
  db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
  const cache = new Map<string, SqliteStatement>();
  const dataVersion = db.prepare('PRAGMA data_version');
  dataVersion.setReturnArrays(true);
  const prepare = (sql: string): SqliteStatement => {
      const cached = cache.get(sql);
      if (cached) {
        // Map order is insertion order: re-inserting marks it most recently used.
        cache.delete(sql);
        cache.set(sql, cached);
        return cached;
      }
      const statement = db.prepare(sql);
      const wrapped = wrapStatement(statement, onWrite);
      const shared: SqliteStatement = { ...wrapped, iterate: (params: Params) => wrapStatement(db.prepare(sql), onWrite).iterate(params) };
      cache.set(sql, shared);
      if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      return shared;
  };
  return {
    writes: () => writes,
    dataVersion: () => (dataVersion.get() as unknown as [number])[0],
    inTransaction: () => db.isTransaction,
    execute: (sql, parameters) => executeStatement(prepare(sql), parameters),
    close: () => {
      cache.clear();
      db.close();
    },
    prepare,
  };
}
