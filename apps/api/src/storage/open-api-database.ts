import type { Kysely } from 'kysely';
import { openDatabase, prepareSchema, type Database, type MigrateMode, type OpenDatabaseOptions } from '@gatehouse/db';
import { apiMigrations } from './migrations.ts';
import type { ApiSchema } from './schema.ts';

export const API_MIGRATE_COMMAND = 'pnpm --filter @gatehouse/api migrate';

/**
 * Opens the API's database. With `migrate: 'auto'` (the default) pending migrations are
 * applied; with `manual` a schema that is behind is refused (SchemaBehindError).
 */
export async function openApiDatabase(url: string, options: OpenDatabaseOptions & { migrate?: MigrateMode } = {}): Promise<Database<ApiSchema>> {
  const database = openDatabase<ApiSchema>(url, options);
  try {
    await prepareSchema(database.db as Kysely<unknown>, 'api', apiMigrations, { mode: options.migrate ?? 'auto', command: API_MIGRATE_COMMAND, setting: 'API_MIGRATE' });
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}
