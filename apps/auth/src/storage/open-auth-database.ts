import type { Kysely } from 'kysely';
import { openDatabase, prepareSchema, type Database, type MigrateMode, type OpenDatabaseOptions } from '@gatehouse/db';
import { authMigrations } from './migrations.ts';
import type { AuthSchema } from './schema.ts';

export const AUTH_MIGRATE_COMMAND = 'authctl db migrate';

/**
 * Opens the authorization server's database. With `migrate: 'auto'` (the default) pending
 * migrations are applied; with `manual` a schema that is behind is refused (SchemaBehindError).
 */
export async function openAuthDatabase(url: string, options: OpenDatabaseOptions & { migrate?: MigrateMode } = {}): Promise<Database<AuthSchema>> {
  const database = openDatabase<AuthSchema>(url, options);
  try {
    await prepareSchema(database.db as Kysely<unknown>, 'auth', authMigrations, {
      mode: options.migrate ?? 'auto',
      command: AUTH_MIGRATE_COMMAND,
      setting: 'AUTH_MIGRATE',
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}
