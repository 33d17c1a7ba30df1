/**
 * Database.readNow on SQLite (src/sqlite-snapshot-reader.ts): a snapshot shared by the reads of
 * one event-loop turn, renewed when this process writes, never showing uncommitted work.
 */
import { DatabaseSync } from 'node:sqlite';
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/index.ts';
import { createTestDatabase, onEngine, type TestDatabase } from '../src/testing.ts';

interface Schema {
  things: { id: number; name: string };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('readNow on SQLite', () => {
  let target: TestDatabase;
  let database: Database<Schema>;
  let db: Kysely<Schema>;
  const name = (id: number) => (onEngine(database, 'sqlite').readNow('select name from things where id = ?', [id]) as Array<{ name: string }>)[0]?.name;

  beforeEach(async () => {
    target = await createTestDatabase('sqlite');
    database = openDatabase<Schema>(target.url);
    db = database.db as Kysely<Schema>;
    await sql`create table things (id integer primary key, name text not null)`.execute(db);
    await db.insertInto('things').values({ id: 1, name: 'one' }).execute();
  });
  afterEach(async () => {
    await database.close();
    await target.drop();
  });

  it('sees every write this process committed before the read, in the same turn too', async () => {
    expect(name(1)).toBe('one');
    await db.updateTable('things').set({ name: 'uno' }).where('id', '=', 1).execute();
    expect(name(1)).toBe('uno');
    await db.insertInto('things').values({ id: 2, name: 'two' }).execute();
    expect(name(2)).toBe('two');
    await db.deleteFrom('things').where('id', '=', 1).execute();
    expect(name(1)).toBeUndefined();
  });

  it('never sees a transaction in progress, and sees it once committed', async () => {
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('things').set({ name: 'pending' }).where('id', '=', 1).execute();
      expect(name(1)).toBe('one');
    });
    expect(name(1)).toBe('pending');
  });

  it('shares one snapshot within a turn: another process’s commit shows from the next turn on', async () => {
    const other = new DatabaseSync(target.url.slice('sqlite:'.length));
    try {
      expect(name(1)).toBe('one');
      other.exec("update things set name = 'elsewhere' where id = 1");
      expect(name(1)).toBe('one');
      await nextTurn();
      expect(name(1)).toBe('elsewhere');
    } finally {
      other.close();
    }
  });

  it('names the committed state: readNowVersion moves on every commit, this process’s or another’s, and only then', async () => {
    const version = onEngine(database, 'sqlite').readNowVersion;
    const first = version();
    expect(name(1)).toBe('one');
    await nextTurn();
    expect(version()).toBe(first);
    await db.updateTable('things').set({ name: 'uno' }).where('id', '=', 1).execute();
    const second = version();
    expect(second).not.toBe(first);
    expect(version()).toBe(second);
    // A transaction in progress is not a new state; its commit is.
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('things').set({ name: 'pending' }).where('id', '=', 1).execute();
      expect(version()).toBe(second);
    });
    const third = version();
    expect(third).not.toBe(second);
    const other = new DatabaseSync(target.url.slice('sqlite:'.length));
    try {
      other.exec("update things set name = 'elsewhere' where id = 1");
      // Within the turn the snapshot holds, and with it the version; the next turn sees the commit.
      expect(version()).toBe(third);
      await nextTurn();
      expect(version()).not.toBe(third);
      expect(name(1)).toBe('elsewhere');
    } finally {
      other.close();
    }
  });

  it('holds no read transaction past its turn: another connection can checkpoint the whole log', async () => {
    expect(name(1)).toBe('one');
    await nextTurn();
    const other = new DatabaseSync(target.url.slice('sqlite:'.length));
    try {
      other.exec("update things set name = 'later' where id = 1");
      const checkpoint = other.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy: number };
      expect(checkpoint.busy).toBe(0);
    } finally {
      other.close();
    }
  });
});

describe('readNow on an in-memory SQLite database', () => {
  it('reads on the one connection', async () => {
    const database = openDatabase<Schema>('sqlite::memory:');
    try {
      await sql`create table things (id integer primary key, name text not null)`.execute(database.db);
      await (database.db as Kysely<Schema>).insertInto('things').values({ id: 7, name: 'seven' }).execute();
      const sqlite = onEngine(database, 'sqlite');
      expect(sqlite.readNow('select name from things where id = ?', [7])).toEqual([{ name: 'seven' }]);
      const before = sqlite.readNowVersion();
      await (database.db as Kysely<Schema>).updateTable('things').set({ name: 'sept' }).where('id', '=', 7).execute();
      expect(sqlite.readNowVersion()).not.toBe(before);
    } finally {
      await database.close();
    }
  });
});
