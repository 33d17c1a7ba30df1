import type { Kysely } from 'kysely';
import { openDatabase, prepareSchema, type Database, type MigrateMode, type OpenDatabaseOptions } from '@gatehouse/db';
import { clientMigrations } from './migrations.ts';
import type { ClientSchema } from './schema.ts';

export const CLIENT_MIGRATE_COMMAND = 'pnpm --filter @gatehouse/client migrate';

/**
 * Opens the relying party's database. With `migrate: 'auto'` (the default) pending migrations
 * are applied; with `manual` a schema that is behind is refused (SchemaBehindError).
 */
export async function openClientDatabase(url: string, options: OpenDatabaseOptions & { migrate?: MigrateMode } = {}): Promise<Database<ClientSchema>> {
  const database = openDatabase<ClientSchema>(url, options);
  try {
    await prepareSchema(database.db as Kysely<unknown>, 'client', clientMigrations, {
      mode: options.migrate ?? 'auto',
      command: CLIENT_MIGRATE_COMMAND,
      setting: 'CLIENT_MIGRATE',
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}
