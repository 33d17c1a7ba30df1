import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, type Database, type OpenDatabaseOptions } from '@gatehouse/db';
import { apiMigrations } from './migrations.ts';
import type { ApiSchema } from './schema.ts';

/** Opens the API's database and applies its pending migrations. */
export async function openApiDatabase(url: string, options: OpenDatabaseOptions = {}): Promise<Database<ApiSchema>> {
  const database = openDatabase<ApiSchema>(url, options);
  await migrateToLatest(database.db as Kysely<unknown>, 'api', apiMigrations);
  return database;
}
