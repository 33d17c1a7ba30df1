import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StatementSync } from 'node:sqlite';
import { SqliteAdapter, type Kysely } from 'kysely';
import pg from 'pg';
import type { Database, Engine } from './open-database.ts';

/** A throw-away database for one test file. */
export interface TestDatabase {
  readonly engine: Engine;
  readonly url: string;
  drop(): Promise<void>;
}

/** The engines every storage suite runs on. */
export const TEST_ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

/** `database` as the type of its engine, which must be `engine` (a test states what it opened). */
export function onEngine<E extends Engine, Schema>(database: Database<Schema>, engine: E): Extract<Database<Schema>, { engine: E }> {
  if (database.engine !== engine) throw new Error(`expected a ${engine} database, got ${database.engine}`);
  return database as Extract<Database<Schema>, { engine: E }>;
}

/** Server used for PostgreSQL tests; `TEST_POSTGRES_URL` overrides it. */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Creates an empty database on the given engine: a file in a temporary folder for SQLite,
 * a database with a random name for PostgreSQL. A missing PostgreSQL server is an error,
 * never a silent skip.
 */
export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-test-'));
    return {
      engine,
      url: `sqlite:${join(dir, 'test.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `gatehouse_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is required for the storage tests but ${TEST_POSTGRES_URL} did not answer (set TEST_POSTGRES_URL): ${String(error)}`,
    );
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    engine,
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** A TCP relay in front of PostgreSQL that a test can cut, like a database restart. */
export interface PostgresOutage {
  /** `url` rewritten to go through the relay. */
  readonly url: string;
  /** Drops every open connection and refuses new ones (ECONNREFUSED), as while the server restarts. */
  down(): Promise<void>;
  /** Accepts connections again on the same port. */
  up(): Promise<void>;
  /**
   * Stops relaying on the connections open now without closing them, as a network that drops
   * packets silently: their queries never answer. New connections are relayed as before.
   */
  freeze(): void;
  close(): Promise<void>;
}

export async function createPostgresOutage(url: string): Promise<PostgresOutage> {
  const { createServer, connect } = await import('node:net');
  const target = new URL(url);
  const sockets = new Set<import('node:net').Socket>();
  const pairs = new Set<[import('node:net').Socket, import('node:net').Socket]>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const pair: [import('node:net').Socket, import('node:net').Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  await listen(0);
  const port = (server.address() as import('node:net').AddressInfo).port;
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(port);
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });
  return {
    url: relayed.toString(),
    down: stop,
    up: () => (server.listening ? Promise.resolve() : listen(port)),
    freeze: () => {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream).pause();
        upstream.unpipe(client).pause();
      }
      pairs.clear();
    },
    close: stop,
  };
}

type StatementMethod = 'run' | 'all' | 'get' | 'iterate';

/**
 * What a statement record leaves out: transaction control and SQLite's data-version check, which
 * the drivers run around the statements.
 */
const NOT_RECORDED = /^\s*(begin|commit|rollback|pragma data_version)\s*$/i;

/**
 * Records the SQL text of every statement that reaches the engine behind `db` (a Kysely instance
 * made by openDatabase) until `stop()`, its transactions' statements included, whichever way it
 * went there (Kysely's executor or direct-queries.ts). On SQLite node:sqlite's statement methods
 * are wrapped, so every connection of the process is counted; on PostgreSQL the query method of the
 * pools' connections (pg's Client subclasses), not that of a plain pg.Client (a change listener,
 * this module's own administration).
 */
export function recordStatements(db: Kysely<never>): { statements: string[]; stop(): void } {
  const statements: string[] = [];
  const record = (text: unknown) => {
    if (typeof text === 'string' && !NOT_RECORDED.test(text)) statements.push(text);
  };
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    const prototype = StatementSync.prototype as unknown as Record<StatementMethod, (this: StatementSync, ...args: unknown[]) => unknown>;
    const originals = { run: prototype.run, all: prototype.all, get: prototype.get, iterate: prototype.iterate };
    for (const name of Object.keys(originals) as StatementMethod[]) {
      const original = originals[name];
      prototype[name] = function (this: StatementSync, ...args: unknown[]) {
        record(this.sourceSQL);
        return original.apply(this, args);
      };
    }
    return { statements, stop: () => Object.assign(prototype, originals) };
  }
  const prototype = pg.Client.prototype as unknown as { query: (this: pg.Client, ...args: unknown[]) => unknown };
  const original = prototype.query;
  prototype.query = function (this: pg.Client, ...args: unknown[]) {
    if (Object.getPrototypeOf(this) !== pg.Client.prototype) record(typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | null)?.text);
    return original.apply(this, args);
  };
  return { statements, stop: () => (prototype.query = original) };
}
