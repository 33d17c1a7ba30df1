/**
 * Named prepared statements for the precompiled queries on PostgreSQL.
 *
 * Kysely sends every query as `client.query(sql, values)`: an unnamed statement, which PostgreSQL
 * parses and plans again on each call: on the token endpoint's client read that costs the
 * PostgreSQL backend several times the CPU of a named statement, and PostgreSQL shares the cores
 * with the servers (bench/README.md, "Token path"). So the SQL texts of `precompile` and
 * `precompileSql` (precompile.ts: a fixed, small set, made at start) get a name here, and the pool's clients run them as named statements: each
 * connection parses one once and then only binds and executes it.
 *
 * Rules:
 * - only texts given a name by {@link nameStatement} are named; any other query (the admin lists
 *   with their filters, migrations) stays unnamed, so a connection holds a bounded set of statements;
 * - a name is derived from the text, so it is the same on every connection and every instance;
 * - when a migration changes the columns a named statement returns (`SELECT *` after ADD COLUMN),
 *   PostgreSQL refuses it with 0A000 "cached plan must not change result type" on each connection
 *   that prepared it. That connection then retires the name and prepares the text under a new one;
 *   the statement is run again at once when it failed outside a transaction (it changed nothing), and
 *   otherwise the error reaches the caller, whose transaction is aborted anyway (isDatabaseUnavailable
 *   counts it as momentary: a 503 with Retry-After, and the retry succeeds);
 * - a connection pooler in front of PostgreSQL must keep prepared statements per server connection:
 *   PgBouncer in session mode, or in transaction mode from 1.21 on with `max_prepared_statements`.
 */
import { createHash } from 'node:crypto';
import type pgModule from 'pg';

/** The SQL texts of one pool that run as named statements, with their names. */
export type StatementNames = Map<string, string>;

const namesByDatabase = new WeakMap<object, StatementNames>();

/** Records that queries compiled for `db` (a Kysely instance) run on a pool that names statements. */
export function nameStatementsOf(db: object, names: StatementNames): void {
  namesByDatabase.set(db, names);
}

/** Gives this SQL text a name on the pool behind `db`; nothing when that pool does not name statements (SQLite). */
export function nameStatement(db: object, sql: string): void {
  const names = namesByDatabase.get(db);
  if (names === undefined || names.has(sql)) return;
  names.set(sql, `gh_${createHash('sha256').update(sql).digest('base64url').slice(0, 20)}`);
}

/** 0A000 on a named statement: its result type changed since it was prepared (a migration). */
function isStaleStatement(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '0A000';
}

/**
 * A `pg.Client` class whose `query(sql, values)` runs a named statement when `names` has the text.
 * Every other form of `query` (a config object, a callback, a cursor) goes to pg unchanged.
 */
export function namingClient(pg: typeof pgModule, names: StatementNames): typeof pgModule.Client {
  return class NamingClient extends pg.Client {
    /** Texts whose statement went stale on this connection, with how many times. */
    readonly #retired = new Map<string, number>();

    // pg's `query` has a dozen overloads; this one forwards what it does not handle untouched.
    override query(...args: any[]): any {
      const [text, values, callback] = args as [unknown, unknown, unknown];
      if (typeof text === 'string' && callback === undefined && (values === undefined || Array.isArray(values))) {
        const name = names.get(text);
        if (name !== undefined) return this.#runNamed(name, text, (values ?? []) as unknown[]);
      }
      return (super.query as (...forwarded: unknown[]) => unknown)(...args);
    }

    async #runNamed(name: string, text: string, values: unknown[]): Promise<pgModule.QueryResult> {
      const retired = this.#retired.get(text) ?? 0;
      try {
        return await super.query({ name: retired === 0 ? name : `${name}_${retired}`, text, values });
      } catch (error) {
        if (!isStaleStatement(error)) throw error;
        // The old statement stays on the server under its old name until the connection closes.
        this.#retired.set(text, retired + 1);
        // The status is the one PostgreSQL reported before this statement: 'I' means it ran on its own.
        if (this.getTransactionStatus() !== 'I') throw error;
        return super.query({ name: `${name}_${retired + 1}`, text, values });
      }
    }
  };
}
