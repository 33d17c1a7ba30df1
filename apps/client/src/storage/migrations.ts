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
  '003_backchannel_logout': {
    async up(db: Kysely<unknown>) {
      // Back-channel logout ends sessions by the ID token's `sub` or `sid` (sessions/session-store.ts).
      await db.schema.alterTable('client_sessions').addColumn('sub', 'text').execute();
      await db.schema.alterTable('client_sessions').addColumn('sid', 'text').execute();
      await db.schema.createIndex('client_sessions_sub').on('client_sessions').columns(['client_id', 'sub']).execute();
      await db.schema.createIndex('client_sessions_sid').on('client_sessions').columns(['client_id', 'sid']).execute();
      // The `jti` of every logout token taken, until it expires: a replayed token is refused.
      await db.schema
        .createTable('client_logout_tokens')
        .addColumn('jti', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('client_logout_tokens_pk', ['client_id', 'jti'])
        .execute();
    },
  },
};
