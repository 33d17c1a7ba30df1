/**
 * Precompiled queries (precompile.ts) run at once on SQLite's one connection, without Kysely's
 * hand-over of that connection. Rules:
 * - a statement runs at once only while no transaction is open on the connection; during one
 *   (Kysely's, or a deferred commit's) it goes through Kysely, which queues it until the
 *   transaction hands the connection back, so no statement ever joins another caller's transaction;
 * - it runs through the statement cache and the write counter Kysely's queries use
 *   (sqlite-driver.ts), and answers what Kysely's SQLite driver answers (tested side by side in
 *   test/sqlite-immediate.test.ts);
 * - an error rejects the promise, as through Kysely;
 * - a query given a transaction (`on`) runs in it, never at once.
 * Why: Kysely hands its one SQLite connection to each query through a lock and a chain of awaits,
 * which cost more than running the prepared statement (bench/README.md, "Token path").
 */
import type { QueryResult } from 'kysely';
import type { OpenSqlite } from './sqlite-driver.ts';

/** Runs a statement at once, or answers undefined when it has to wait for the connection. */
export type ImmediateQuery = <R>(sql: string, parameters: readonly unknown[]) => Promise<QueryResult<R>> | undefined;

const runners = new WeakMap<object, ImmediateQuery>();

/** Lets the precompiled queries of `db` (a Kysely instance on this connection) run at once. */
export function runImmediatelyOn(db: object, sqlite: Pick<OpenSqlite, 'inTransaction' | 'execute'>): void {
  const run = <R>(sql: string, parameters: readonly unknown[]): Promise<QueryResult<R>> | undefined => {
    if (sqlite.inTransaction()) return undefined;
    try {
      return Promise.resolve(sqlite.execute(sql, parameters) as QueryResult<R>);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };
  runners.set(db, run);
}

/** The immediate runner of `db`, if its queries may run at once (SQLite); undefined otherwise. */
export function immediateRunner(db: object): ImmediateQuery | undefined {
  return runners.get(db);
}
