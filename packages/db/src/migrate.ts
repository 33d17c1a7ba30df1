import type { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';

/** A numbered, ordered set of migrations, e.g. `{ '001_initial': { up } }`. */
export type Migrations = Record<string, Migration>;

/** Error raised when a migration fails; the database is left as it was before the run (one transaction on both engines). */
export class MigrationError extends Error {
  readonly code = 'migration_failed';
}

/** When an app applies its migrations: `auto` on start (development), `manual` only through its migrate command. */
export type MigrateMode = 'auto' | 'manual';

/** Raised on start when the schema is behind and the app may not migrate it (`*_MIGRATE=manual`). */
export class SchemaBehindError extends Error {
  readonly code = 'schema_behind';
  readonly pending: readonly string[];
  constructor(message: string, pending: readonly string[]) {
    super(message);
    this.name = 'SchemaBehindError';
    this.pending = pending;
  }
}

function migrator(db: Kysely<unknown>, app: string, migrations: Migrations): Migrator {
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  return new Migrator({ db, provider, migrationTableName: `${app}_migrations`, migrationLockTableName: `${app}_migrations_lock` });
}

/** Names of the migrations of `app` not yet applied, in order (all of them on an empty database). */
export async function pendingMigrations(db: Kysely<unknown>, app: string, migrations: Migrations): Promise<string[]> {
  const infos = await migrator(db, app, migrations).getMigrations();
  return infos.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/**
 * Brings the schema of `app` up to date (`auto`), or checks that it is (`manual`) and throws
 * {@link SchemaBehindError} naming the pending migrations and `command`, the way to apply them.
 */
export async function prepareSchema(
  db: Kysely<unknown>,
  app: string,
  migrations: Migrations,
  options: { mode: MigrateMode; command: string; setting: string },
): Promise<void> {
  if (options.mode === 'auto') {
    await migrateToLatest(db, app, migrations);
    return;
  }
  const pending = await pendingMigrations(db, app, migrations);
  if (pending.length) {
    throw new SchemaBehindError(
      `the ${app} database schema is behind (${pending.length} pending migration${pending.length === 1 ? '' : 's'}: ${pending.join(', ')}); run \`${options.command}\` first, or set ${options.setting}=auto`,
      pending,
    );
  }
}

/**
 * Applies every pending migration of one app. Each app keeps its own history table
 * (`<app>_migrations`), so several apps may share a database. Concurrent runs never race:
 * Kysely's migrator holds a PostgreSQL advisory lock (`pg_advisory_lock`) around the run, and
 * SQLite allows one writer; the second run finds nothing left to do.
 */
export async function migrateToLatest(db: Kysely<unknown>, app: string, migrations: Migrations): Promise<string[]> {
  const { error, results } = await migrator(db, app, migrations).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`migration ${failed} of ${app} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
