import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { precompile, precompileSql } from '../src/index.ts';
import { onEngine, TEST_ENGINES } from '../src/testing.ts';
import { thingsDatabase } from './things-database.ts';

describe.each(TEST_ENGINES)('precompiled queries run without Kysely\'s executor on %s (direct-queries.ts)', (engine) => {
  const things = thingsDatabase(engine);

  it('answer what Kysely answers for the same statement: rows, rows changed, last insert id', async () => {
    const { db } = things;
    const insert = precompile(db, ['id', 'name'], (v) => db.insertInto('things').values({ id: v.id, name: v.name }));
    const rename = precompile(db, ['name'], (v) => db.updateTable('things').set({ name: v.name }));
    const byName = precompile(db, ['name'], (v) => db.selectFrom('things').select(['id', 'name']).where('name', '=', v.name).orderBy('id'));
    const raw = precompileSql<{ id: number }>(db, engine === 'sqlite' ? 'select id from things where id > ? order by id' : 'select id from things where id > $1 order by id');
    // The direct path first, then the same compiled statement through Kysely, on a fresh row each.
    const direct = await insert({ id: 1, name: 'a' });
    const plain = await db.executeQuery(db.insertInto('things').values({ id: 2, name: 'a' }).compile());
    expect(direct).toEqual(engine === 'sqlite' ? { insertId: 1n, numAffectedRows: 1n, rows: [] } : { numAffectedRows: 1n, rows: [] });
    expect(plain).toEqual(engine === 'sqlite' ? { insertId: 2n, numAffectedRows: 1n, rows: [] } : { numAffectedRows: 1n, rows: [] });
    expect(await byName({ name: 'a' })).toEqual(await db.executeQuery(db.selectFrom('things').select(['id', 'name']).where('name', '=', 'a').orderBy('id').compile()));
    expect((await byName({ name: 'a' })).rows).toEqual([
      { id: 1, name: 'a' },
      { id: 2, name: 'a' },
    ]);
    expect(await byName({ name: 'none' })).toEqual(await db.executeQuery(db.selectFrom('things').select(['id', 'name']).where('name', '=', 'none').compile()));
    expect((await raw([1])).rows).toEqual([{ id: 2 }]);
    expect(await raw([1])).toEqual(await db.executeQuery(sql<{ id: number }>`select id from things where id > ${1} order by id`.compile(db)));
    const renamed = await rename({ name: 'b' });
    expect(renamed.numAffectedRows).toBe(2n);
    expect(renamed.rows).toEqual([]);
    await expect(insert({ id: 1, name: 'again' })).rejects.toThrow(engine === 'sqlite' ? /UNIQUE constraint failed/ : /duplicate key value/);
  });

  it("skip Kysely's executor outside a transaction, and go through it inside one", async () => {
    const { db } = things;
    const byId = precompile(db, ['id'], (v) => db.selectFrom('things').select('name').where('id', '=', v.id));
    const executor = Object.getPrototypeOf(db.getExecutor()) as { executeQuery: (...args: unknown[]) => unknown };
    const original = executor.executeQuery;
    let calls = 0;
    executor.executeQuery = function (this: unknown, ...args: unknown[]) {
      calls += 1;
      return original.apply(this, args);
    };
    try {
      await byId({ id: 1 });
      expect(calls).toBe(0);
      await db.transaction().execute((trx) => byId({ id: 1 }, trx));
      expect(calls).toBeGreaterThan(0);
    } finally {
      executor.executeQuery = original;
    }
  });

  it('never join a transaction in progress: its rollback takes only its own rows', async () => {
    const { db } = things;
    const insert = precompile(db, ['id', 'name'], (v) => db.insertInto('things').values({ id: v.id, name: v.name }));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let begun!: () => void;
    const inside = new Promise<void>((resolve) => (begun = resolve));
    const transaction = db.transaction().execute(async (trx) => {
      await trx.insertInto('things').values({ id: 1, name: 'in the transaction' }).execute();
      begun();
      await held;
      throw new Error('rolled back');
    });
    await inside;
    let done = false;
    const outside = insert({ id: 2, name: 'outside' }).then(() => (done = true));
    try {
      if (engine === 'postgres') {
        // PostgreSQL runs it on another connection (opened for it if the pool has none idle): it
        // ends while the transaction is still open, however long the connection takes to open.
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the insert waited for the open transaction')), 5_000)));
        await Promise.race([outside, waited]).finally(() => clearTimeout(timer));
        expect(done).toBe(true);
      } else {
        // SQLite's one connection is the transaction's until it ends.
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(done).toBe(false);
      }
    } finally {
      release();
    }
    await expect(transaction).rejects.toThrow('rolled back');
    await outside;
    expect(await db.selectFrom('things').select(['id', 'name']).execute()).toEqual([{ id: 2, name: 'outside' }]);
  });
});

describe('precompiled queries on SQLite run at once when no transaction holds the connection (direct-queries.ts)', () => {
  const things = thingsDatabase('sqlite');

  const count = () => (onEngine(things.database, 'sqlite').readNow('select count(*) as n from things', []) as { n: number }[])[0]!.n;

  it('runs before its promise is awaited while no transaction is open, and rejects with the engine error', async () => {
    const { db } = things;
    const insert = precompile(db, ['id', 'name'], (v) => db.insertInto('things').values({ id: v.id, name: v.name }));
    const stored = insert({ id: 1, name: 'a' });
    // Another connection already sees it: the statement ran inside the call.
    expect(count()).toBe(1);
    await stored;
    await expect(insert({ id: 1, name: 'again' })).rejects.toThrow(/UNIQUE constraint failed/);
  });

  it('a deferred commit holds the connection: a query made during it runs after the commit', async () => {
    const { db } = things;
    const database = onEngine(things.database, 'sqlite');
    const insert = precompile(db, ['id', 'name'], (v) => db.insertInto('things').values({ id: v.id, name: v.name }));
    const order: string[] = [];
    let outside: Promise<unknown> | undefined;
    await database.deferredSync!.transaction(async (trx) => {
      await insert({ id: 1, name: 'rotation' }, trx);
      outside = insert({ id: 2, name: 'outside' }).then(() => order.push('outside'));
      await new Promise((resolve) => setImmediate(resolve));
      order.push('commit');
    });
    await outside;
    expect(order).toEqual(['commit', 'outside']);
    expect(count()).toBe(2);
  });
});
