/**
 * Kysely's SQLite dialect with transactional DDL, which SQLite has (CREATE, ALTER and DROP roll
 * back with their transaction) and Kysely's own adapter does not claim. Rules:
 * - the migrator (migrate.ts) then runs a whole run of migrations in one transaction, as it does
 *   on PostgreSQL: a migration that fails halfway leaves the database as it was before the run,
 *   never with half a migration applied and unrecorded, which the next run would trip over;
 * - the run commits once: every other commit of a connection waits for the disk (synchronous =
 *   FULL), so a fresh database's schema costs one sync instead of one per statement;
 * - no migration uses a statement SQLite refuses or ignores inside a transaction (VACUUM,
 *   `PRAGMA journal_mode`, `PRAGMA foreign_keys`).
 */
import { SqliteAdapter, SqliteDialect, type DialectAdapter } from 'kysely';

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class TransactionalDdlSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}
