/**
 * Schema history of the relying party, applied in name order under the app name `client`.
 * Rules: never edit a released migration, add the next number; use only Kysely builders
 * that produce SQL valid on both SQLite and PostgreSQL.
 */
import type { Kysely } from 'kysely';
import type { Migrations } from '@gatehouse/db';

export const clientMigrations: Migrations = {
  '001_sessions': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('client_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('client_sessions_expires').on('client_sessions').column('expires_at').execute();
    },
  },
  '002_logins': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('client_logins')
        .addColumn('state', 'text', (c) => c.primaryKey())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('browser', 'text', (c) => c.notNull())
        .addColumn('nonce', 'text', (c) => c.notNull())
        .addColumn('code_verifier', 'text', (c) => c.notNull())
        .addColumn('return_to', 'text', (c) => c.notNull())
        .addColumn('silent', 'integer', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('client_logins_expires').on('client_logins').column('expires_at').execute();
    },
  },
};
