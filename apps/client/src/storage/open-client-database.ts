import { openMigratedDatabase, type Database, type OpenMigratedDatabaseOptions } from '@gatehouse/db';
import { clientMigrations } from './migrations.ts';
import type { ClientSchema } from './schema.ts';

const CLIENT_MIGRATE_COMMAND = 'pnpm --filter @gatehouse/client migrate';

/**
 * Opens the relying party's database. With `migrate: 'auto'` (the default) pending migrations
 * are applied; with `manual` a schema that is behind is refused (SchemaBehindError).
 */
export function openClientDatabase(url: string, options: OpenMigratedDatabaseOptions = {}): Promise<Database<ClientSchema>> {
  return openMigratedDatabase<ClientSchema>(url, { app: 'client', migrations: clientMigrations, command: CLIENT_MIGRATE_COMMAND, setting: 'CLIENT_MIGRATE' }, options);
}
