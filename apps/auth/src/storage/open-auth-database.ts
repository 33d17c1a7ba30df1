import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, type Database, type OpenDatabaseOptions } from '@gatehouse/db';
import { authMigrations } from './migrations.ts';
import type { AuthSchema } from './schema.ts';

/** Opens the authorization server's database and brings its schema up to date. */
export async function openAuthDatabase(url: string, options: OpenDatabaseOptions = {}): Promise<Database<AuthSchema>> {
  const database = openDatabase<AuthSchema>(url, options);
  try {
    await migrateToLatest(database.db as Kysely<unknown>, 'auth', authMigrations);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}
