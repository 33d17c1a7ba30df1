/**
 * Schema history of the authorization server, applied in name order under the app name `auth`.
 * Rules: never edit a released migration, add the next number; use only Kysely builders
 * that produce SQL valid on both SQLite and PostgreSQL.
 */
import type { Kysely } from 'kysely';
import type { Migrations } from '@gatehouse/db';

export const authMigrations: Migrations = {
  '001_accounts': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('username', 'text', (c) => c.notNull().unique())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('groups', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('totp_secret_sealed', 'text')
        .addColumn('totp_last_step', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  '002_regulation_failures': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('regulation_failures')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('at_ms', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('regulation_failures_key_at').on('regulation_failures').columns(['key', 'at_ms']).execute();
      await db.schema.createIndex('regulation_failures_at').on('regulation_failures').column('at_ms').execute();
    },
  },
  '003_signing_keys': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('signing_keys')
        .addColumn('kid', 'text', (c) => c.primaryKey())
        .addColumn('alg', 'text', (c) => c.notNull())
        .addColumn('private_jwk_sealed', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('retired_at', 'bigint')
        .addColumn('expires_at', 'bigint')
        .execute();
    },
  },
  '004_clients': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('clients')
        .addColumn('client_id', 'text', (c) => c.primaryKey())
        .addColumn('client_secret_sealed', 'text')
        .addColumn('redirect_uris', 'text', (c) => c.notNull())
        .addColumn('post_logout_redirect_uris', 'text', (c) => c.notNull())
        .addColumn('public', 'integer', (c) => c.notNull())
        .addColumn('token_endpoint_auth_method', 'text', (c) => c.notNull())
        .addColumn('grant_types', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  '005_oidc_payloads': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('oidc_payloads')
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('grant_id', 'text')
        .addColumn('user_code', 'text')
        .addColumn('uid', 'text')
        .addColumn('expires_at', 'bigint')
        .addColumn('consumed_at', 'bigint')
        .addPrimaryKeyConstraint('oidc_payloads_pk', ['model', 'id'])
        .execute();
      for (const column of ['grant_id', 'uid', 'user_code', 'expires_at']) {
        await db.schema.createIndex(`oidc_payloads_${column}`).on('oidc_payloads').column(column).execute();
      }
    },
  },
};
