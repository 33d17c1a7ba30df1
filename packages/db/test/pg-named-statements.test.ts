import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, openDatabase, precompile, type Database } from '../src/index.ts';
import { createTestDatabase, type TestDatabase } from '../src/testing.ts';

interface Schema {
  things: { id: number; name: string; extra?: string | null };
}

interface PreparedRow {
  name: string;
  statement: string;
}

// The statements prepared on the connection that runs this query (the pool has one connection).
async function preparedStatements(db: Kysely<Schema>): Promise<PreparedRow[]> {
  const { rows } = await sql<PreparedRow>`select name, statement from pg_prepared_statements order by prepare_time, name`.execute(db);
  return rows;
}

describe('named prepared statements on PostgreSQL', () => {
  let target: TestDatabase;
  let database: Database<Schema>;
  let db: Kysely<Schema>;
  let admin: pg.Client;

  beforeAll(async () => {
    target = await createTestDatabase('postgres');
    admin = new pg.Client({ connectionString: target.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await target.drop();
  });
  beforeEach(async () => {
    await database?.close();
    await admin.query('drop table if exists things');
    await admin.query(`create table things (id integer primary key, name text not null)`);
    await admin.query(`insert into things values (1, 'one'), (2, 'two')`);
    // One connection: every query of a test runs on it, so pg_prepared_statements shows its statements.
    database = openDatabase<Schema>(target.url, { maxConnections: 1 });
    db = database.db as Kysely<Schema>;
  });

  it('runs a precompiled query as one named statement, parsed once and bound on each call', async () => {
    const byId = precompile(db, ['id'], (v) => db.selectFrom('things').select(['id', 'name']).where('id', '=', v.id));
    expect((await byId({ id: 1 })).rows).toEqual([{ id: 1, name: 'one' }]);
    expect((await byId({ id: 2 })).rows).toEqual([{ id: 2, name: 'two' }]);
    expect((await byId({ id: 3 })).rows).toEqual([]);
    const prepared = await preparedStatements(db);
    expect(prepared).toHaveLength(1);
    expect(prepared[0]!.name).toMatch(/^gh_[\w-]{20}$/);
    expect(prepared[0]!.statement).toBe('select "id", "name" from "things" where "id" = $1');
  });

  it('gives the same text the same name in another pool, and leaves queries that are not precompiled unnamed', async () => {
    const build = (v: Record<'id', never>) => db.selectFrom('things').select('name').where('id', '=', v.id);
    await precompile(db, ['id'], build)({ id: 1 });
    await db.selectFrom('things').select('id').where('name', '=', 'two').execute();
    await sql`select count(*) from things`.execute(db);
    const [first] = await preparedStatements(db);
    expect(await preparedStatements(db)).toEqual([first]);

    const other = openDatabase<Schema>(target.url, { maxConnections: 1 });
    try {
      const otherDb = other.db as Kysely<Schema>;
      await precompile(otherDb, ['id'], (v) => otherDb.selectFrom('things').select('name').where('id', '=', v.id))({ id: 2 });
      expect(await preparedStatements(otherDb)).toEqual([first]);
    } finally {
      await other.close();
    }
  });

  it('runs a precompiled query inside a transaction on the transaction’s connection', async () => {
    const rename = precompile(db, ['id', 'name'], (v) => db.updateTable('things').set({ name: v.name }).where('id', '=', v.id));
    await expect(
      db.transaction().execute(async (trx) => {
        await rename({ id: 1, name: 'uno' }, trx);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await db.selectFrom('things').select('name').where('id', '=', 1).executeTakeFirst())?.name).toBe('one');
    await db.transaction().execute((trx) => rename({ id: 1, name: 'uno' }, trx));
    expect((await db.selectFrom('things').select('name').where('id', '=', 1).executeTakeFirst())?.name).toBe('uno');
  });

  it('prepares the text again after a migration changes the columns of SELECT *, and answers the call that met the change', async () => {
    const byId = precompile(db, ['id'], (v) => db.selectFrom('things').selectAll().where('id', '=', v.id));
    expect((await byId({ id: 1 })).rows).toEqual([{ id: 1, name: 'one' }]);
    await admin.query(`alter table things add column extra text default 'added'`);
    expect((await byId({ id: 1 })).rows).toEqual([{ id: 1, name: 'one', extra: 'added' }]);
    expect((await byId({ id: 2 })).rows).toEqual([{ id: 2, name: 'two', extra: 'added' }]);
    const names = (await preparedStatements(db)).map((row) => row.name);
    expect(names).toHaveLength(2);
    expect(names[1]).toBe(`${names[0]}_1`);
  });

  it('fails the call that meets the change inside a transaction (it is aborted anyway), and the next call works', async () => {
    const byId = precompile(db, ['id'], (v) => db.selectFrom('things').selectAll().where('id', '=', v.id));
    await byId({ id: 1 });
    await admin.query(`alter table things add column extra text`);
    const failed = await db.transaction().execute((trx) => byId({ id: 1 }, trx)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({ code: '0A000', routine: 'RevalidateCachedQuery' });
    // Answered as a momentary outage (503 with Retry-After), not as a bug.
    expect(isDatabaseUnavailable(failed)).toBe(true);
    expect((await db.transaction().execute((trx) => byId({ id: 2 }, trx))).rows).toEqual([{ id: 2, name: 'two', extra: null }]);
    expect((await byId({ id: 1 })).rows).toEqual([{ id: 1, name: 'one', extra: null }]);
  });

  it('passes other errors of a named statement to the caller unchanged, and keeps the statement', async () => {
    const insert = precompile(db, ['id', 'name'], (v) => db.insertInto('things').values({ id: v.id, name: v.name }));
    await insert({ id: 3, name: 'three' });
    const duplicate = await insert({ id: 3, name: 'again' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(duplicate).toMatchObject({ code: '23505' });
    expect(isDatabaseUnavailable(duplicate)).toBe(false);
    await insert({ id: 4, name: 'four' });
    expect(await preparedStatements(db)).toHaveLength(1);
  });
});
