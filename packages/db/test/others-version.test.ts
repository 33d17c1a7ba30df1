/**
 * Database.othersVersion on SQLite (src/open-database.ts): it moves when another connection (another
 * process) commits to the file, and never for this process's own commits or for a transaction in progress.
 */
import { DatabaseSync } from 'node:sqlite';
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/index.ts';
import { createTestDatabase, onEngine, type TestDatabase } from '../src/testing.ts';

interface Schema {
  things: { id: number; name: string };
}

describe('othersVersion on SQLite', () => {
  let target: TestDatabase;
  let database: Database<Schema>;
  let db: Kysely<Schema>;

  beforeEach(async () => {
    target = await createTestDatabase('sqlite');
    database = openDatabase<Schema>(target.url);
    db = database.db as Kysely<Schema>;
    await sql`create table things (id integer primary key, name text not null)`.execute(db);
  });
  afterEach(async () => {
    await database.close();
    await target.drop();
  });

  it("stays through this process's own commits and moves on each commit by another connection", async () => {
    const version = onEngine(database, 'sqlite').othersVersion;
    const first = version();
    await db.insertInto('things').values({ id: 1, name: 'one' }).execute();
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('things').set({ name: 'uno' }).where('id', '=', 1).execute();
    });
    expect(version()).toBe(first);

    const other = new DatabaseSync(target.url.slice('sqlite:'.length));
    try {
      other.exec("update things set name = 'elsewhere' where id = 1");
      const second = version();
      expect(second).not.toBe(first);
      expect(version()).toBe(second);
      // A read by the other connection is no change.
      other.prepare('select name from things').all();
      expect(version()).toBe(second);
      other.exec("insert into things (id, name) values (2, 'two')");
      expect(version()).not.toBe(second);
    } finally {
      other.close();
    }
  });

  it('is fixed in memory, where no other connection reaches the data', async () => {
    const memory = openDatabase<Schema>('sqlite::memory:');
    try {
      const version = onEngine(memory, 'sqlite').othersVersion;
      const first = version();
      await sql`create table things (id integer primary key, name text not null)`.execute(memory.db);
      expect(version()).toBe(first);
    } finally {
      await memory.close();
    }
  });
});
