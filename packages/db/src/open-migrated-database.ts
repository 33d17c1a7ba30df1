import type { Kysely } from 'kysely';
import { prepareSchema, type MigrateMode, type Migrations, type SchemaBehindError } from './migrate.ts';
import { openDatabase, type Database, type OpenDatabaseOptions } from './open-database.ts';

/** What {@link openMigratedDatabase} needs to know about the app whose database it opens. */
export interface AppMigrations {
  /** Names the history tables (`<app>_migrations`) and the messages. */
  readonly app: string;
  readonly migrations: Migrations;
  /** How an operator applies pending migrations, e.g. `authctl db migrate`. */
  readonly command: string;
  /** The variable that chooses the mode, e.g. `AUTH_MIGRATE`. */
  readonly setting: string;
}

/** Options of {@link openMigratedDatabase}: the pool's, and when to migrate. */
export type OpenMigratedDatabaseOptions = OpenDatabaseOptions & {
  /** `auto` (the default) applies pending migrations; `manual` refuses a schema that is behind. */
  migrate?: MigrateMode;
};

/**
 * Opens an app's database and brings its schema up to date (`auto`), or checks that it is
 * (`manual`: a schema that is behind throws {@link SchemaBehindError} naming the command).
 * On any failure the connection is closed before the error propagates.
 */
export async function openMigratedDatabase<Schema>(
  url: string,
  app: AppMigrations,
  options: OpenMigratedDatabaseOptions = {},
): Promise<Database<Schema>> {
  const database = openDatabase<Schema>(url, options);
  try {
    await prepareSchema(database.db as Kysely<unknown>, app.app, app.migrations, {
      mode: options.migrate ?? 'auto',
      command: app.command,
      setting: app.setting,
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}
