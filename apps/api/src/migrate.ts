/**
 * `pnpm --filter @gatehouse/api migrate`: applies the API's pending database migrations, as its
 * own deployment step (servers with API_MIGRATE=manual, the production default, refuse to start
 * on a schema that is behind). Safe to run from several places at once (PostgreSQL advisory lock).
 */
import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, redactUrl } from '@gatehouse/db';
import { apiMigrations } from './storage/migrations.ts';
import { apiDatabaseSettings, ConfigError } from './config/config.ts';

try {
  // Only the database: the migration step runs before the API's client secret exists (deploy/README.md).
  const config = apiDatabaseSettings(process.env);
  const database = openDatabase(config.databaseUrl);
  try {
    const applied = await migrateToLatest(database.db as Kysely<unknown>, 'api', apiMigrations);
    process.stdout.write(
      applied.length
        ? `api: applied ${applied.length} migration${applied.length === 1 ? '' : 's'} to ${redactUrl(config.databaseUrl)}: ${applied.join(', ')}\n`
        : `api: the schema of ${redactUrl(config.databaseUrl)} is already up to date\n`,
    );
  } finally {
    await database.close();
  }
} catch (error) {
  process.stderr.write(`api: ${error instanceof Error && (error instanceof ConfigError || 'code' in error) ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
