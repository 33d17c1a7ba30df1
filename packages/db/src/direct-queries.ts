/**
 * Precompiled queries (precompile.ts) run without Kysely's executor, on what is behind it. Rules:
 * - on SQLite a statement runs at once on the one connection, but only while no transaction is
 *   open on it; during one (Kysely's, or a deferred commit's) it goes through Kysely, which queues
 *   it until the transaction hands the connection back, so no statement ever joins another
 *   caller's transaction;
 * - on PostgreSQL a statement outside a transaction takes a connection of the pool, runs there (a
 *   named statement, pg-named-statements.ts) and gives the connection back, as Kysely would;
 * - either answers what Kysely's driver answers for the statement (tested side by side in
 *   test/direct-queries.test.ts), and an error rejects the promise, as through Kysely; on SQLite
 *   it runs through the statement cache and the write counter Kysely's queries use (sqlite-driver.ts);
 * - a query given a transaction (`on`) runs in it, never directly.
 * Why: Kysely hands a connection to each query through a chain of awaits (on SQLite a lock too),
 * which cost more than running the prepared statement (bench/README.md, "Token path").
 */
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import type pgModule from 'pg';
import type { OpenSqlite } from './sqlite-driver.ts';

/** Runs a statement now, or answers undefined when it has to go through Kysely. */
export type DirectQuery = <R>(sql: string, parameters: readonly unknown[]) => Promise<QueryResult<R>> | undefined;

const runners = new WeakMap<object, DirectQuery>();

/** The direct runner of `db` (a Kysely instance), if its queries may run directly; undefined otherwise. */
export function directRunner(db: object): DirectQuery | undefined {
  return runners.get(db);
}

/** The statement run on the SQLite connection now, its answer or its error as a settled promise. */
function executeNow<R>(sqlite: Pick<OpenSqlite, 'execute'>, sql: string, parameters: readonly unknown[]): Promise<QueryResult<R>> {
  try {
    return Promise.resolve(sqlite.execute(sql, parameters) as QueryResult<R>);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/** Lets the precompiled queries of `db` run at once on this SQLite connection. */
export function runOnSqliteDirectly(db: object, sqlite: Pick<OpenSqlite, 'inTransaction' | 'execute'>): void {
  runners.set(db, <R>(sql: string, parameters: readonly unknown[]) => (sqlite.inTransaction() ? undefined : executeNow<R>(sqlite, sql, parameters)));
}

/** Runs every query given to it at once on this SQLite connection (a transaction the caller holds). */
export function sqliteConnectionRunner(sqlite: Pick<OpenSqlite, 'execute'>): Pick<Kysely<unknown>, 'executeQuery'> {
  const executeQuery = <R>(query: CompiledQuery<R> | Compilable<R>): Promise<QueryResult<R>> => {
    const compiled = 'compile' in query ? query.compile() : query;
    return executeNow<R>(sqlite, compiled.sql, compiled.parameters);
  };
  return { executeQuery };
}

const COUNTED = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** Lets the precompiled queries of `db` run on a connection of this PostgreSQL pool. */
export function runOnPoolDirectly(db: object, pool: Pick<pgModule.Pool, 'connect'>): void {
  runners.set(db, async <R>(sql: string, parameters: readonly unknown[]): Promise<QueryResult<R>> => {
    const client = await pool.connect();
    try {
      const { command, rowCount, rows } = await client.query(sql, parameters as unknown[]);
      // Kysely's answer for the same statement (its PostgreSQL driver).
      return { numAffectedRows: COUNTED.has(command) ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
    } finally {
      client.release();
    }
  });
}
