import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

type Params = readonly unknown[];
type SqliteValue = null | number | bigint | string | Uint8Array;

// node:sqlite binds only null, numbers, bigints, strings and bytes.
function bindable(params: Params): SqliteValue[] {
  return params.map((value) => {
    if (value === undefined || value === null) return null;
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value instanceof Date) return value.getTime();
    return value as SqliteValue;
  });
}

function wrapStatement(statement: StatementSync): SqliteStatement {
  return {
    get reader() {
      return statement.columns().length > 0;
    },
    all: (params: Params) => statement.all(...bindable(params)) as unknown[],
    run: (params: Params) => {
      const result = statement.run(...bindable(params));
      return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
    },
    iterate: (params: Params) => statement.iterate(...bindable(params)) as IterableIterator<unknown>,
  };
}

/**
 * Adapts Node's built-in `node:sqlite` to the statement interface Kysely's SqliteDialect expects,
 * so the embedded engine needs no native build.
 */
export function openSqlite(path: string): SqliteDatabase {
  const db = new DatabaseSync(path);
  // WAL lets the operator CLI write while the server reads; busy_timeout waits out short write locks.
  db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
  return {
    close: () => db.close(),
    prepare: (sql: string) => wrapStatement(db.prepare(sql)),
  };
}
