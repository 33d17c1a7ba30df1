import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach } from 'vitest';
import { openDatabase, type Database, type Engine } from '../src/index.ts';
import { createTestDatabase, type TestDatabase } from '../src/testing.ts';

/** The one table of {@link thingsDatabase}. */
export interface ThingsSchema {
  things: { id: number; name: string };
}

/**
 * A fresh database on `engine` for each test of the calling suite, with one table `things`
 * (id, name), closed and dropped after the test. Read `database` and `db` inside the tests.
 */
export function thingsDatabase(engine: Engine): { readonly database: Database<ThingsSchema>; readonly db: Kysely<ThingsSchema>; readonly url: string } {
  let target: TestDatabase | undefined;
  let database: Database<ThingsSchema> | undefined;
  beforeEach(async () => {
    target = await createTestDatabase(engine);
    database = openDatabase<ThingsSchema>(target.url);
    await sql`create table things (id integer primary key, name text not null)`.execute(database.db);
  });
  afterEach(async () => {
    await database?.close();
    await target?.drop();
    database = target = undefined;
  });
  return {
    get database() {
      if (!database) throw new Error('thingsDatabase is read inside a test');
      return database;
    },
    get db() {
      if (!database) throw new Error('thingsDatabase is read inside a test');
      return database.db as Kysely<ThingsSchema>;
    },
    get url() {
      if (!target) throw new Error('thingsDatabase is read inside a test');
      return target.url;
    },
  };
}
