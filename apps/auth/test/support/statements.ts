import { StatementSync } from 'node:sqlite';
import { SqliteAdapter, type Kysely, type QueryResult } from 'kysely';

type Executor = { executeQuery(query: { sql: string }): Promise<QueryResult<unknown>> };
type StatementMethod = 'run' | 'all' | 'get' | 'iterate';

/**
 * What the record leaves out on SQLite: transaction control and the data-version check, which
 * run in the driver around the statements (Kysely's executor never saw them either).
 */
const NOT_RECORDED = /^\s*(begin|commit|rollback|pragma data_version)\s*$/i;

/**
 * Records the SQL text of every statement run through `db` (its transactions included) until
 * `stop()`. On PostgreSQL Kysely's executor prototype is wrapped, so every Kysely instance sharing
 * it is counted; on SQLite, where precompiled queries run on the connection without Kysely
 * (@gatehouse/db sqlite-immediate.ts), node:sqlite's statement methods are, so every statement
 * of every connection in this process is counted.
 */
export function recordStatements(db: Kysely<unknown>): { statements: string[]; stop(): void } {
  const statements: string[] = [];
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    const prototype = StatementSync.prototype as unknown as Record<StatementMethod, (this: StatementSync, ...args: unknown[]) => unknown>;
    const originals = { run: prototype.run, all: prototype.all, get: prototype.get, iterate: prototype.iterate };
    for (const name of Object.keys(originals) as StatementMethod[]) {
      const original = originals[name];
      prototype[name] = function (this: StatementSync, ...args: unknown[]) {
        if (!NOT_RECORDED.test(this.sourceSQL)) statements.push(this.sourceSQL);
        return original.apply(this, args);
      };
    }
    return { statements, stop: () => Object.assign(prototype, originals) };
  }
  const prototype = Object.getPrototypeOf(db.getExecutor()) as Executor;
  const original = prototype.executeQuery;
  prototype.executeQuery = function (this: Executor, query) {
    statements.push(query.sql);
    return original.call(this, query as never);
  };
  return { statements, stop: () => (prototype.executeQuery = original) };
}
