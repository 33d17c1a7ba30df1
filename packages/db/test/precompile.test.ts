import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, precompile, precompileReadNow, type Database } from '../src/index.ts';
import { createTestDatabase, onEngine, TEST_ENGINES, type TestDatabase } from '../src/testing.ts';

interface Schema {
  things: { id: number; name: string; note: string | null };
}

describe.each(TEST_ENGINES)('precompile on %s', (engine) => {
  let target: TestDatabase;
  let database: Database<Schema>;
  let db: Kysely<Schema>;

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = openDatabase<Schema>(target.url);
    db = database.db as Kysely<Schema>;
    await sql`create table things (id integer primary key, name text not null, note text)`.execute(db);
  });
  afterAll(async () => {
    await database.close();
    await target.drop();
  });

  it('runs one compiled upsert with new values each time, a value used twice included', async () => {
    const upsert = precompile(db, ['id', 'name', 'note'], (v) =>
      db
        .insertInto('things')
        .values({ id: v.id, name: v.name, note: v.note })
        .onConflict((oc) => oc.column('id').doUpdateSet({ name: v.name, note: v.note })),
    );
    const byId = precompile(db, ['id'], (v) => db.selectFrom('things').select(['id', 'name', 'note']).where('id', '=', v.id));
    await upsert({ id: 1, name: 'one', note: null });
    await upsert({ id: 2, name: 'two', note: 'x' });
    await upsert({ id: 1, name: 'uno', note: 'y' });
    expect((await byId({ id: 1 })).rows).toEqual([{ id: 1, name: 'uno', note: 'y' }]);
    expect((await byId({ id: 2 })).rows).toEqual([{ id: 2, name: 'two', note: 'x' }]);
    expect((await byId({ id: 3 })).rows).toEqual([]);
  });

  it('reads at once on SQLite, the rows the compiled query returns, committed writes included; PostgreSQL has no such read', async () => {
    if (engine === 'postgres') {
      expect('readNow' in database).toBe(false);
      expect('readNowVersion' in database).toBe(false);
      return;
    }
    const byName = (v: Record<'name', never>) => db.selectFrom('things').select(['id', 'note']).where('name', '=', v.name).orderBy('id');
    const now = precompileReadNow(onEngine(database, 'sqlite').readNow, ['name'], byName);
    await db.insertInto('things').values({ id: 10, name: 'ten', note: null }).execute();
    const rows = now({ name: 'ten' });
    expect(rows).toEqual([{ id: 10, note: null }]);
    expect(rows).toEqual((await precompile(db, ['name'], byName)({ name: 'ten' })).rows);
    await db.updateTable('things').set({ note: 'changed' }).where('id', '=', 10).execute();
    expect(now({ name: 'ten' })).toEqual([{ id: 10, note: 'changed' }]);
    expect(now({ name: 'none' })).toEqual([]);
  });

  it('refuses at once a query where a named value did not become a parameter', () => {
    expect(() => precompile(db, ['id', 'unused'], (v) => db.selectFrom('things').selectAll().where('id', '=', v.id))).toThrow('does not use "unused" as a parameter');
  });
});
