import { openMigratedDatabase, type Database, type OpenMigratedDatabaseOptions } from '@gatehouse/db';
import { apiMigrations } from './migrations.ts';
import type { ApiSchema } from './schema.ts';

const API_MIGRATE_COMMAND = 'pnpm --filter @gatehouse/api migrate';

/**
 * Opens the API's database. With `migrate: 'auto'` (the default) pending migrations are
 * applied; with `manual` a schema that is behind is refused (SchemaBehindError).
 */
export function openApiDatabase(url: string, options: OpenMigratedDatabaseOptions = {}): Promise<Database<ApiSchema>> {
  return openMigratedDatabase<ApiSchema>(url, { app: 'api', migrations: apiMigrations, command: API_MIGRATE_COMMAND, setting: 'API_MIGRATE' }, options);
}
