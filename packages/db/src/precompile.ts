/**
 * A query built and compiled once, run with new values on each call. Rules:
 * - `build` receives one sentinel per named value and returns the Kysely query; each value is
 *   found in the compiled parameters by its sentinel, so the order Kysely gives the parameters
 *   does not matter and a value may appear more than once (an upsert's insert and update parts);
 * - a query whose named values did not all become parameters (one inlined as SQL, or one
 *   unused) is refused when it is precompiled, at start, never on a request;
 * - the SQL text stays the same from call to call, so the SQLite driver's statement cache
 *   (sqlite-driver.ts) serves it prepared;
 * - it runs on the database it was compiled for, or on `on` (a transaction of that database);
 * - on PostgreSQL it runs as a named prepared statement, parsed once per connection
 *   (pg-named-statements.ts); on SQLite the driver's cache already keeps it prepared; on both it
 *   runs without Kysely's executor outside a transaction (direct-queries.ts).
 * Why: building and compiling a Kysely query costs about as much as running it on SQLite, on the
 * API read and on the token endpoint alike (bench/README.md, "Token path").
 */
import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';
import type { SqliteReadNow } from './open-database.ts';
import { nameStatement } from './pg-named-statements.ts';
import { directRunner } from './direct-queries.ts';

/** Runs the precompiled query with these values, on its database or on `on` (a transaction of it). */
export type PrecompiledQuery<K extends string, R> = (values: Readonly<Record<K, unknown>>, on?: Pick<Kysely<unknown>, 'executeQuery'>) => Promise<QueryResult<R>>;

/** Runs the precompiled read at once (SQLite's {@link SqliteReadNow}) and returns its rows. */
export type PrecompiledRead<K extends string, R> = (values: Readonly<Record<K, unknown>>) => R[];

function compileWithSentinels<K extends string, R>(names: readonly K[], build: (values: Record<K, never>) => Compilable<R>): { compiled: CompiledQuery<R>; order: K[] } {
  const sentinels = Object.fromEntries(names.map((name) => [name, `\u0000${name}\u0000`])) as unknown as Record<K, never>;
  const compiled = build(sentinels).compile();
  const order = compiled.parameters.map((value) => {
    const name = names.find((n) => sentinels[n] === value);
    if (name === undefined) throw new Error(`precompiled query has a parameter that is not a named value: ${compiled.sql}`);
    return name;
  });
  for (const name of names) if (!order.includes(name)) throw new Error(`precompiled query does not use "${name}" as a parameter: ${compiled.sql}`);
  return { compiled, order };
}

export function precompile<DB, K extends string, R>(db: Kysely<DB>, names: readonly K[], build: (values: Record<K, never>) => Compilable<R>): PrecompiledQuery<K, R> {
  const { compiled, order } = compileWithSentinels(names, build);
  nameStatement(db, compiled.sql);
  const direct = directRunner(db);
  return (values, on) => {
    const parameters = order.map((name) => values[name]);
    return (on === undefined ? direct?.<R>(compiled.sql, parameters) : undefined) ?? (on ?? db).executeQuery<R>({ ...compiled, parameters });
  };
}

/**
 * A query written as SQL text (with the engine's own placeholders: `?` on SQLite, `$1` on
 * PostgreSQL), run with new parameters on each call; a named statement on PostgreSQL, as precompile's.
 * For the queries Kysely's builder cannot express; `sqlText` is fixed at start, never built per request.
 */
export function precompileSql<R>(db: Pick<Kysely<unknown>, 'executeQuery'>, sqlText: string): (parameters: readonly unknown[], on?: Pick<Kysely<unknown>, 'executeQuery'>) => Promise<QueryResult<R>> {
  nameStatement(db, sqlText);
  const direct = directRunner(db);
  return (parameters, on) => (on === undefined ? direct?.<R>(sqlText, parameters) : undefined) ?? (on ?? db).executeQuery<R>(CompiledQuery.raw(sqlText, [...parameters]));
}

/** The same, for a read run at once on SQLite (Database.readNow): the same SQL text, so the same prepared statement. */
export function precompileReadNow<K extends string, R>(readNow: SqliteReadNow, names: readonly K[], build: (values: Record<K, never>) => Compilable<R>): PrecompiledRead<K, R> {
  const { compiled, order } = compileWithSentinels(names, build);
  return (values) => readNow(compiled.sql, order.map((name) => values[name])) as R[];
}
