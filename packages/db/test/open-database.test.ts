import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { migrateToLatest, openDatabase, parseDatabaseUrl, type Database } from '../src/index.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '../src/testing.ts';

interface Schema {
  things: { id: number; name: string; created_at: number };
}

const migrations = {
  '001_things': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('things')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
};

describe('parseDatabaseUrl', () => {
  it('recognises both engines and refuses others', () => {
    expect(parseDatabaseUrl('sqlite:./data/a.db')).toEqual({ engine: 'sqlite', path: './data/a.db' });
    expect(parseDatabaseUrl('sqlite::memory:')).toEqual({ engine: 'sqlite', path: ':memory:' });
    expect(parseDatabaseUrl('postgres://u@h:5432/d')).toEqual({ engine: 'postgres', connectionString: 'postgres://u@h:5432/d' });
    expect(() => parseDatabaseUrl('mysql://u:secret@h/d')).toThrow(
      'unsupported database URL "mysql://u:***@h/d": use sqlite:<file>, sqlite::memory: or postgres://user@host:port/db',
    );
  });
});

describe.each(TEST_ENGINES)('openDatabase on %s', (engine) => {
  let target: TestDatabase;
  let database: Database<Schema>;

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = openDatabase<Schema>(target.url);
  });
  afterAll(async () => {
    await database.close();
    await target.drop();
  });

  it('applies migrations once and round-trips rows with epoch-millisecond bigints', async () => {
    expect(database.engine).toBe(engine);
    expect(await migrateToLatest(database.db as Kysely<unknown>, 'test', migrations)).toEqual(['001_things']);
    expect(await migrateToLatest(database.db as Kysely<unknown>, 'test', migrations)).toEqual([]);
    const now = 1_790_000_000_123;
    await database.db.insertInto('things').values({ id: 1, name: 'one', created_at: now }).execute();
    const rows = await database.db.selectFrom('things').selectAll().execute();
    expect(rows).toEqual([{ id: 1, name: 'one', created_at: now }]);
    const count = await sql<{ n: number }>`select count(*) as n from things`.execute(database.db);
    expect(Number(count.rows[0]?.n)).toBe(1);
  });
});

describe('a PostgreSQL connection terminated by the server', () => {
  it('does not crash the process: the error goes to onConnectionError and the next query reconnects', async () => {
    const target = await createTestDatabase('postgres');
    let reported: (code: string) => void = () => {};
    const terminated = new Promise<string>((resolve) => (reported = resolve));
    const database = openDatabase(target.url, { onConnectionError: (error) => reported((error as Error & { code?: string }).code ?? error.message) });
    try {
      await sql`select 1`.execute(database.db);
      const admin = openDatabase(target.url.replace(/\/[^/]+$/, '/postgres'));
      const name = new URL(target.url).pathname.slice(1);
      await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`.execute(admin.db);
      await admin.close();
      expect(await terminated).toBe('57P01');
      const again = await sql<{ one: number }>`select 1 as one`.execute(database.db);
      expect(again.rows).toEqual([{ one: 1 }]);
    } finally {
      await database.close();
      await target.drop();
    }
  });
});

describe('poolStats', () => {
  it('is undefined on SQLite, which has no pool', async () => {
    const target = await createTestDatabase('sqlite');
    const database = openDatabase(target.url);
    try {
      expect(database.poolStats()).toBeUndefined();
    } finally {
      await database.close();
      await target.drop();
    }
  });

  it('reports open, idle and waiting on PostgreSQL', async () => {
    const target = await createTestDatabase('postgres');
    const database = openDatabase(target.url, { maxConnections: 1 });
    try {
      expect(database.poolStats()).toEqual({ total: 0, idle: 0, waiting: 0 });
      await sql`select 1`.execute(database.db);
      expect(database.poolStats()).toEqual({ total: 1, idle: 1, waiting: 0 });
      // With the only connection held by a transaction, a second query waits for it.
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let inTransaction: () => void = () => {};
      const started = new Promise<void>((resolve) => (inTransaction = resolve));
      const transaction = database.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        inTransaction();
        await held;
      });
      await started;
      const queued = sql`select 1`.execute(database.db);
      await vi.waitFor(() => expect(database.poolStats()).toEqual({ total: 1, idle: 0, waiting: 1 }));
      release();
      await Promise.all([transaction, queued]);
      expect(database.poolStats()).toEqual({ total: 1, idle: 1, waiting: 0 });
    } finally {
      await database.close();
      await target.drop();
    }
  });
});
