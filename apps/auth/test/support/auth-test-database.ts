import { afterAll, beforeAll } from 'vitest';
import type { Kysely } from 'kysely';
import type { Database, Engine, SqliteDatabase } from '@gatehouse/db';
import { createTestDatabase, type TestDatabase } from '@gatehouse/db/testing';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';
import type { AuthSchema } from '../../src/storage/schema.ts';

/**
 * Registers hooks that give a describe block a migrated auth database on one engine.
 * Read `.db` inside tests (it is set in beforeAll).
 */
export function useAuthDatabase(engine: Engine): { readonly db: Kysely<AuthSchema>; readonly url: string; readonly deferredSync: SqliteDatabase<AuthSchema>['deferredSync'] } {
  let target: TestDatabase | undefined;
  let database: Database<AuthSchema> | undefined;
  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = await openAuthDatabase(target.url);
  });
  afterAll(async () => {
    await database?.close();
    await target?.drop();
  });
  return {
    get db() {
      if (!database) throw new Error('auth test database not open yet');
      return database.db;
    },
    get url() {
      if (!target) throw new Error('auth test database not created yet');
      return target.url;
    },
    /** SQLite on a file: commits that wait for the disk off the event loop (Database.deferredSync). */
    get deferredSync() {
      if (!database) throw new Error('auth test database not open yet');
      return database.engine === 'sqlite' ? database.deferredSync : undefined;
    },
  };
}
