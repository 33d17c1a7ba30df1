import type { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';

/** A numbered, ordered set of migrations, e.g. `{ '001_initial': { up } }`. */
export type Migrations = Record<string, Migration>;

/** Error raised when a migration fails; the database is left at the last good step. */
export class MigrationError extends Error {
  readonly code = 'migration_failed';
}

/**
 * Applies every pending migration of one app. Each app keeps its own history table
 * (`<app>_migrations`), so several apps may share a database.
 */
export async function migrateToLatest(db: Kysely<unknown>, app: string, migrations: Migrations): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: `${app}_migrations`,
    migrationLockTableName: `${app}_migrations_lock`,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`migration ${failed} of ${app} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
