export { openDatabase } from './open-database.ts';
export type { Database, Engine, OpenDatabaseOptions, PoolStats } from './open-database.ts';
export { parseDatabaseUrl, redactUrl, DatabaseUrlError } from './database-url.ts';
export type { DatabaseTarget } from './database-url.ts';
export { migrateToLatest, MigrationError, pendingMigrations, prepareSchema, SchemaBehindError } from './migrate.ts';
export type { Migrations, MigrateMode } from './migrate.ts';
export { isDatabaseUnavailable } from './database-unavailable.ts';
