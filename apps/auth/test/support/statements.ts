import type { Kysely, QueryResult } from 'kysely';

type Executor = { executeQuery(query: { sql: string }): Promise<QueryResult<unknown>> };

/**
 * Records the SQL text of every statement run through `db` (its transactions included) until
 * `stop()`: Kysely's executor prototype is wrapped, so every Kysely instance sharing it is counted.
 */
export function recordStatements(db: Kysely<unknown>): { statements: string[]; stop(): void } {
  const prototype = Object.getPrototypeOf(db.getExecutor()) as Executor;
  const original = prototype.executeQuery;
  const statements: string[] = [];
  prototype.executeQuery = function (this: Executor, query) {
    statements.push(query.sql);
    return original.call(this, query as never);
  };
  return { statements, stop: () => (prototype.executeQuery = original) };
}
