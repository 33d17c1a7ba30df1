/**
 * `pnpm --filter @gatehouse/client migrate`: applies the pending migrations of the database of
 * each relying-party app (app-one and app-two, read through the launcher's childEnv: the shared
 * CLIENT_DATABASE_URL, or each app's default SQLite file), as its own deployment step. Servers with CLIENT_MIGRATE=manual (the production
 * default) refuse to start on a schema that is behind. Safe to run concurrently (PostgreSQL
 * advisory lock).
 */
import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, redactUrl } from '@gatehouse/db';
import { APPS, childEnv } from './launcher.ts';
import { clientDatabaseUrl } from './config/config.ts';
import { clientMigrations } from './storage/migrations.ts';

for (const app of APPS) {
  try {
    const url = clientDatabaseUrl(childEnv(app, process.env));
    const database = openDatabase(url);
    try {
      const applied = await migrateToLatest(database.db as Kysely<unknown>, 'client', clientMigrations);
      process.stdout.write(
        applied.length
          ? `${app.clientId}: applied ${applied.length} migration${applied.length === 1 ? '' : 's'} to ${redactUrl(url)}: ${applied.join(', ')}\n`
          : `${app.clientId}: the schema of ${redactUrl(url)} is already up to date\n`,
      );
    } finally {
      await database.close();
    }
  } catch (error) {
    process.stderr.write(`${app.clientId}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
