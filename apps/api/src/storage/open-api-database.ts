import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, type Database } from '@gatehouse/db';
import { apiMigrations } from './migrations.ts';
import type { ApiSchema } from './schema.ts';

/** Opens the API's database and applies its pending migrations. */
export async function openApiDatabase(url: string): Promise<Database<ApiSchema>> {
  const database = openDatabase<ApiSchema>(url);
  await migrateToLatest(database.db as Kysely<unknown>, 'api', apiMigrations);
  return database;
}
