export { openDatabase } from './open-database.ts';
export type { Database, Engine, OpenDatabaseOptions, PoolStats } from './open-database.ts';
export { parseDatabaseUrl, databaseUrlProblem, redactUrl, DatabaseUrlError } from './database-url.ts';
export type { DatabaseTarget } from './database-url.ts';
export { migrateToLatest, MigrationError, pendingMigrations, prepareSchema, SchemaBehindError } from './migrate.ts';
export type { Migrations, MigrateMode } from './migrate.ts';
export { openMigratedDatabase } from './open-migrated-database.ts';
export type { AppMigrations, OpenMigratedDatabaseOptions } from './open-migrated-database.ts';
export { isDatabaseUnavailable } from './database-unavailable.ts';
