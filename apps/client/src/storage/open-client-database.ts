import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, type Database, type OpenDatabaseOptions } from '@gatehouse/db';
import { clientMigrations } from './migrations.ts';
import type { ClientSchema } from './schema.ts';

/** Opens the relying party's database and brings its schema up to date. */
export async function openClientDatabase(url: string, options: OpenDatabaseOptions = {}): Promise<Database<ClientSchema>> {
  const database = openDatabase<ClientSchema>(url, options);
  try {
    await migrateToLatest(database.db as Kysely<unknown>, 'client', clientMigrations);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}
