export { openDatabase } from './open-database.ts';
export type { Database, Engine, OpenDatabaseOptions, PoolStats } from './open-database.ts';
export { parseDatabaseUrl, redactUrl, DatabaseUrlError } from './database-url.ts';
export type { DatabaseTarget } from './database-url.ts';
export { migrateToLatest, MigrationError } from './migrate.ts';
export type { Migrations } from './migrate.ts';
