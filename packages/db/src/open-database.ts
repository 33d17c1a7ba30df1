import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import { TransactionalDdlSqliteDialect } from './sqlite-dialect.ts';
import type pgModule from 'pg';
import { parseDatabaseUrl, type DatabaseTarget } from './database-url.ts';
import { listenForChanges, type ChangeListener, type ChangeListenerOptions } from './pg-change-listener.ts';
import { nameStatementsOf, namingClient, type StatementNames } from './pg-named-statements.ts';
import { coalescedSync, walDatasync, type LogSync } from './sqlite-log-sync.ts';
import { openSqlite, type OpenSqlite } from './sqlite-driver.ts';
import { runOnPoolDirectly, runOnSqliteDirectly, sqliteConnectionRunner } from './direct-queries.ts';
import { sqliteSnapshotReader } from './sqlite-snapshot-reader.ts';

/** The engines Gatehouse stores data in. */
export type Engine = DatabaseTarget['engine'];

/** A synchronous read on the embedded SQLite connection: SQL with `?` parameters, rows as objects. */
export type SqliteReadNow = (sql: string, parameters: readonly unknown[]) => unknown[];

/** Connections of a PostgreSQL pool at one moment. */
export interface PoolStats {
  /** Connections open, idle or in use. */
  readonly total: number;
  /** Open connections not running a query. */
  readonly idle: number;
  /** Queries queued because every connection is in use and the pool is full. */
  readonly waiting: number;
}

/** What every open database has, whatever its engine. */
interface OpenDatabase<Schema> {
  readonly db: Kysely<Schema>;
  /** The connection pool's numbers now; undefined for SQLite, which has one embedded connection. */
  poolStats(): PoolStats | undefined;
  close(): Promise<void>;
}

/** An open SQLite database, with the reads and commits only an embedded engine offers. */
export interface SqliteDatabase<Schema = unknown> extends OpenDatabase<Schema> {
  readonly engine: 'sqlite';
  /**
   * Runs a read at once and returns its rows without a promise, on a second connection whose
   * snapshot is shared by the reads of one event-loop turn and renewed as soon as this process
   * writes (sqlite-snapshot-reader.ts). It sees committed rows only, never a transaction in
   * progress. For hot reads (the API's item reads).
   */
  readonly readNow: SqliteReadNow;
  /**
   * A number naming the committed state `readNow` sees now. It moves whenever anything has been
   * committed since, by this process or another one on the same file; while it stays, a repeated
   * `readNow` returns the same rows, so a result may be reused (the API's item reads).
   */
  readonly readNowVersion: () => number;
  /**
   * A number that moves whenever another connection has committed to the file (another process:
   * the operator CLI, another server); this process's own commits leave it (SQLite's
   * `PRAGMA data_version` on this process's connection). For rows this process keeps across
   * requests and whose own changes it tracks itself (the token endpoint's client rows), so that
   * a change by anyone else is still seen by the next request. Read at the first call of an
   * event-loop turn and kept for that turn: the requests answered in one turn arrived together,
   * and each read takes and releases the log's read lock, which costs system calls (bench/README.md,
   * "Token path"); a commit by another process is seen from the next turn on.
   */
  readonly othersVersion: () => number;
  /**
   * On a file (undefined in memory, which has no log to wait for): commits whose wait for the disk
   * leaves the event loop (sqlite-log-sync.ts). A normal SQLite commit calls fsync inside the
   * statement, and the whole process waits for the disk. Here `transaction` commits without it
   * (`PRAGMA synchronous = NORMAL` for that commit only; every other commit stays FULL) and `sync`
   * then waits for the log in libuv's pool. Answer a caller only once `sync` has resolved: what was
   * answered is then as durable as after a normal commit. Until then the rows are visible to other
   * reads, and a crash of the machine (not of the process) could lose them, with nobody having been
   * told they were stored. For hot writes (the token endpoint's refresh-token rotations).
   */
  readonly deferredSync: DeferredSync | undefined;
}

/** An open PostgreSQL database, with the notifications only a server engine offers. */
export interface PostgresDatabase<Schema = unknown> extends OpenDatabase<Schema> {
  readonly engine: 'postgres';
  /**
   * Listens on a notification channel with a connection of its own (pg-change-listener.ts), for a
   * cache that other processes' commits must invalidate (a trigger sends the notifications).
   * Closed with the database.
   */
  listen(channel: string, options?: ChangeListenerOptions): ChangeListener;
}

/**
 * An open database: a Kysely instance plus the engine behind it. Tagged by `engine`: what only
 * one engine offers is a member of that engine's type, reached after checking `engine`.
 */
export type Database<Schema = unknown> = SqliteDatabase<Schema> | PostgresDatabase<Schema>;

/** What runs a query: the database, a Kysely transaction, or a deferred commit's transaction. */
export type QueryRunner = Pick<Kysely<unknown>, 'executeQuery'>;

/** See {@link SqliteDatabase.deferredSync}. */
export interface DeferredSync {
  /**
   * Runs `work` in one transaction committed without waiting for the disk. `work` runs its
   * queries on `trx` (a precompiled query's `on`, or `trx.executeQuery(query)`); the connection
   * is held for it, so no other query joins the transaction.
   */
  transaction<T>(work: (trx: QueryRunner) => Promise<T>): Promise<T>;
  /** Resolves once every commit made before the call is on disk. */
  sync: LogSync;
}

/** Options for {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** Most connections a PostgreSQL pool opens (default 10). */
  maxConnections?: number;
  /**
   * Called when an idle PostgreSQL connection fails (server restart, connection terminated).
   * The pool drops that connection and opens a new one for the next query; without a handler
   * the error would crash the process.
   */
  onConnectionError?: (error: Error) => void;
  /** Longest wait for a new PostgreSQL connection, ms (default 5000). */
  connectTimeoutMs?: number;
}

/** `read`'s value, read at the first call of an event-loop turn and kept until the turn ends. */
function oncePerTurn(read: () => number): () => number {
  let kept: number | undefined;
  const forget = () => {
    kept = undefined;
  };
  return () => {
    if (kept === undefined) {
      kept = read();
      setImmediate(forget);
    }
    return kept;
  };
}

/**
 * `work` in one transaction of the connection, committed with synchronous = NORMAL and FULL again
 * after it, also when the work or the commit fails. The caller holds the connection. NORMAL and
 * BEGIN run together, and COMMIT and FULL, with no await between: no other statement of this
 * process commits while the connection is NORMAL.
 */
async function withoutSyncOnCommit<T>(sqlite: Pick<OpenSqlite, 'execute' | 'inTransaction'>, trx: QueryRunner, work: (trx: QueryRunner) => Promise<T>): Promise<T> {
  try {
    sqlite.execute('PRAGMA synchronous = NORMAL', []);
    sqlite.execute('BEGIN', []);
    const result = await work(trx);
    sqlite.execute('COMMIT', []);
    return result;
  } catch (error) {
    if (sqlite.inTransaction()) sqlite.execute('ROLLBACK', []);
    throw error;
  } finally {
    sqlite.execute('PRAGMA synchronous = FULL', []);
  }
}

const INT8_OID = 20;

// `pg` is loaded when the first PostgreSQL database is opened: a process on SQLite never holds it
// (its heap and its code; bench/README.md, "Memory"). It is CommonJS, so require loads it in place.
const require = createRequire(import.meta.url);
let loadedPg: typeof pgModule | undefined;
function pgDriver(): typeof pgModule {
  loadedPg ??= require('pg') as typeof pgModule;
  return loadedPg;
}

/** Opens the database named by a `sqlite:` or `postgres://` URL. */
export function openDatabase<Schema = unknown>(url: string, options: OpenDatabaseOptions = {}): Database<Schema> {
  const target = parseDatabaseUrl(url);
  if (target.engine === 'sqlite') {
    if (target.path !== ':memory:') mkdirSync(dirname(target.path), { recursive: true });
    const sqlite = openSqlite(target.path);
    const db = new Kysely<Schema>({ dialect: new TransactionalDdlSqliteDialect({ database: sqlite }) });
    // An in-memory database is private to its one connection: there, reads run on it directly.
    const snapshots = target.path === ':memory:' ? undefined : sqliteSnapshotReader(target.path, () => sqlite.writes());
    const readNow: SqliteReadNow = snapshots ? (sql, parameters) => snapshots.read(sql, parameters) : (sql, parameters) => sqlite.prepare(sql).all(parameters) as unknown[];
    // In memory, the one connection is this process's: its own write count names its state.
    const readNowVersion = snapshots ? () => snapshots.version() : () => sqlite.writes();
    // An in-memory database has no log on disk: it has nothing to defer.
    const log = target.path === ':memory:' ? undefined : walDatasync(target.path);
    const onConnection = sqliteConnectionRunner(sqlite);
    const deferredSync: DeferredSync | undefined = log && {
      // The connection is taken from Kysely for the whole transaction (no other query joins it or
      // runs while it is NORMAL), and its statements run on it at once (direct-queries.ts).
      transaction: (work) => db.connection().execute(() => withoutSyncOnCommit(sqlite, onConnection, work)),
      sync: coalescedSync(log.flush),
    };
    const close = async () => {
      snapshots?.close();
      await db.destroy();
      await log?.close();
    };
    // In memory no other connection can reach the data.
    const othersVersion = target.path === ':memory:' ? () => 0 : oncePerTurn(() => sqlite.dataVersion());
    const database: SqliteDatabase<Schema> = { db, engine: 'sqlite', readNow, readNowVersion, othersVersion, deferredSync, poolStats: () => undefined, close };
    runOnSqliteDirectly(db, sqlite);
    return database;
  }
  const pg = pgDriver();
  // The precompiled queries' SQL texts, run as named prepared statements (pg-named-statements.ts).
  const statementNames: StatementNames = new Map();
  const pool = new pg.Pool({
    Client: namingClient(pg, statementNames),
    connectionString: target.connectionString,
    max: options.maxConnections ?? 10,
    // A database that does not answer fails the query (503 upstream) instead of hanging it.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    // Timestamps are stored as epoch milliseconds in BIGINT columns; they fit a JS number.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  pool.on('error', (error) => options.onConnectionError?.(error));
  // A connection that drops while checked out (between acquire and query, or mid-query) emits
  // 'error' on the client itself, where the pool does not listen: without this the process would
  // crash on a database restart. The query in flight fails on its own and the next one reconnects.
  pool.on('connect', (client) => client.on('error', (error) => options.onConnectionError?.(error)));
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  nameStatementsOf(db, statementNames);
  runOnPoolDirectly(db, pool);
  const listeners = new Set<ChangeListener>();
  const database: PostgresDatabase<Schema> = {
    db,
    engine: 'postgres',
    listen: (channel, listenOptions) => {
      const listener = listenForChanges(pg, target.connectionString, channel, { ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }), ...listenOptions });
      listeners.add(listener);
      return listener;
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: async () => {
      await Promise.all([...listeners].map((listener) => listener.close()));
      await db.destroy();
    },
  };
  return database;
}
