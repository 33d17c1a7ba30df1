import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { migrateToLatest, openDatabase, type Database } from '../src/index.ts';
import { coalescedSync } from '../src/sqlite-log-sync.ts';
import { createTestDatabase, onEngine, type TestDatabase } from '../src/testing.ts';

/** A flush the test finishes by hand: each call is one pending entry. */
function manualFlush() {
  const calls: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const flush = () => new Promise<void>((resolve, reject) => calls.push({ resolve, reject }));
  return { calls, flush };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('coalescedSync', () => {
  it('one flush at a time; callers during a flush share the next one, started after it', async () => {
    const { calls, flush } = manualFlush();
    const sync = coalescedSync(flush);
    const done: string[] = [];
    const first = sync().then(() => done.push('first'));
    await settle();
    expect(calls).toHaveLength(1);
    // Two commits made while the first flush runs: it may have started before them.
    const second = sync().then(() => done.push('second'));
    const third = sync().then(() => done.push('third'));
    await settle();
    expect(calls).toHaveLength(1);
    calls[0]!.resolve();
    await first;
    await settle();
    expect(done).toEqual(['first']);
    expect(calls).toHaveLength(2);
    calls[1]!.resolve();
    await Promise.all([second, third]);
    expect(done).toEqual(['first', 'second', 'third']);
    expect(calls).toHaveLength(2);
  });

  it("a failed flush fails its own callers only; the next caller gets a fresh flush", async () => {
    const { calls, flush } = manualFlush();
    const sync = coalescedSync(flush);
    const failing = sync();
    const waiting = sync();
    await settle();
    calls[0]!.reject(new Error('EIO: i/o error, fdatasync'));
    await expect(failing).rejects.toThrow('EIO');
    await settle();
    expect(calls).toHaveLength(2);
    calls[1]!.resolve();
    await expect(waiting).resolves.toBeUndefined();
    const later = sync();
    await settle();
    expect(calls).toHaveLength(3);
    calls[2]!.resolve();
    await expect(later).resolves.toBeUndefined();
  });
});

interface Schema {
  tokens: { id: string; value: string };
}

const migrations = {
  '001_tokens': {
    async up(db: Kysely<unknown>) {
      await db.schema.createTable('tokens').addColumn('id', 'text', (c) => c.primaryKey()).addColumn('value', 'text', (c) => c.notNull()).execute();
    },
  },
};

const synchronous = async (db: Kysely<Schema>) => (await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(db)).rows[0]!.synchronous;

describe('Database.deferredSync on SQLite', () => {
  let target: TestDatabase | undefined;
  let database: Database<Schema> | undefined;
  afterEach(async () => {
    await database?.close();
    await target?.drop();
    database = target = undefined;
  });

  it('commits with synchronous NORMAL for that transaction only, FULL before and after, also when the work fails', async () => {
    target = await createTestDatabase('sqlite');
    database = openDatabase<Schema>(target.url);
    await migrateToLatest(database.db as Kysely<unknown>, 'test', migrations);
    const deferred = onEngine(database, 'sqlite').deferredSync!;
    expect(await synchronous(database.db)).toBe(2);
    const db = database.db;
    const seen = await deferred.transaction(async (trx) => {
      await trx.executeQuery(db.insertInto('tokens').values({ id: 'a', value: 'one' }));
      return (await trx.executeQuery(sql<{ synchronous: number }>`PRAGMA synchronous`.compile(db))).rows[0]!.synchronous;
    });
    expect(seen).toBe(1);
    expect(await synchronous(database.db)).toBe(2);
    await expect(
      deferred.transaction(async (trx) => {
        await trx.executeQuery(db.insertInto('tokens').values({ id: 'b', value: 'two' }));
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(await synchronous(database.db)).toBe(2);
    expect(await database.db.selectFrom('tokens').select(['id', 'value']).orderBy('id').execute()).toEqual([{ id: 'a', value: 'one' }]);
  });

  it('sync resolves once the log is synced; the rows are there after reopening', async () => {
    target = await createTestDatabase('sqlite');
    database = openDatabase<Schema>(target.url);
    await migrateToLatest(database.db as Kysely<unknown>, 'test', migrations);
    const sqlite = onEngine(database, 'sqlite');
    await sqlite.deferredSync!.transaction((trx) => trx.executeQuery(sqlite.db.insertInto('tokens').values({ id: 'r', value: 'rotated' })));
    const path = target.url.slice('sqlite:'.length);
    expect(existsSync(`${path}-wal`)).toBe(true);
    await Promise.all([sqlite.deferredSync!.sync(), sqlite.deferredSync!.sync()]);
    // Another connection's read-now sees it, and so does a fresh open.
    expect(sqlite.readNow('select value from tokens where id = ?', ['r'])).toEqual([{ value: 'rotated' }]);
    await database.close();
    database = openDatabase<Schema>(target.url);
    expect(await database.db.selectFrom('tokens').select('value').where('id', '=', 'r').execute()).toEqual([{ value: 'rotated' }]);
  });

  it('is absent in memory and on PostgreSQL, where there is nothing to defer', async () => {
    const memory = openDatabase('sqlite::memory:');
    expect(onEngine(memory, 'sqlite').deferredSync).toBeUndefined();
    await memory.close();
    target = await createTestDatabase('postgres');
    database = openDatabase<Schema>(target.url);
    expect(database.engine).toBe('postgres');
    expect('deferredSync' in database).toBe(false);
  });
});
