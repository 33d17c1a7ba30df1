/**
 * Database.othersVersion on SQLite (src/open-database.ts): it moves when another connection (another
 * process) commits to the file, and never for this process's own commits or for a transaction in progress;
 * it is read once per event-loop turn.
 */
import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/index.ts';
import { onEngine } from '../src/testing.ts';
import { thingsDatabase, type ThingsSchema } from './things-database.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('othersVersion on SQLite', () => {
  const things = thingsDatabase('sqlite');

  it("stays through this process's own commits and moves on each commit by another connection", async () => {
    const { database, db } = things;
    const version = onEngine(database, 'sqlite').othersVersion;
    const first = version();
    await db.insertInto('things').values({ id: 1, name: 'one' }).execute();
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('things').set({ name: 'uno' }).where('id', '=', 1).execute();
    });
    expect(version()).toBe(first);

    const other = new DatabaseSync(things.url.slice('sqlite:'.length));
    try {
      other.exec("update things set name = 'elsewhere' where id = 1");
      await nextTurn();
      const second = version();
      expect(second).not.toBe(first);
      expect(version()).toBe(second);
      // A read by the other connection is no change.
      other.prepare('select name from things').all();
      await nextTurn();
      expect(version()).toBe(second);
      other.exec("insert into things (id, name) values (2, 'two')");
      await nextTurn();
      expect(version()).not.toBe(second);
    } finally {
      other.close();
    }
  });

  it('keeps the value read first for the rest of the turn, and reads again in the next one', async () => {
    const { database } = things;
    const version = onEngine(database, 'sqlite').othersVersion;
    await nextTurn();
    const first = version();
    const other = new DatabaseSync(things.url.slice('sqlite:'.length));
    try {
      other.exec("insert into things (id, name) values (3, 'three')");
      // The same turn: the commit is seen from the next one on.
      expect(version()).toBe(first);
      await Promise.resolve();
      expect(version()).toBe(first);
      await nextTurn();
      expect(version()).not.toBe(first);
    } finally {
      other.close();
    }
  });

  it('is fixed in memory, where no other connection reaches the data', async () => {
    const memory = openDatabase<ThingsSchema>('sqlite::memory:');
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
