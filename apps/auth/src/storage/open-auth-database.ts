import { openMigratedDatabase, type Database, type OpenMigratedDatabaseOptions } from '@gatehouse/db';
import { authMigrations } from './migrations.ts';
import type { AuthSchema } from './schema.ts';

const AUTH_MIGRATE_COMMAND = 'authctl db migrate';

/**
 * Opens the authorization server's database. With `migrate: 'auto'` (the default) pending
 * migrations are applied; with `manual` a schema that is behind is refused (SchemaBehindError).
 */
export function openAuthDatabase(url: string, options: OpenMigratedDatabaseOptions = {}): Promise<Database<AuthSchema>> {
  return openMigratedDatabase<AuthSchema>(url, { app: 'auth', migrations: authMigrations, command: AUTH_MIGRATE_COMMAND, setting: 'AUTH_MIGRATE' }, options);
}
