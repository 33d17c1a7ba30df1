import type { Kysely } from 'kysely';
import type { Migrations } from '@gatehouse/db';

/** Numbered migrations of the API's tables; the same statements run on SQLite and PostgreSQL. */
export const apiMigrations: Migrations = {
  '001_items': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('api_items')
        .addColumn('collection', 'text', (c) => c.notNull())
        .addColumn('id', 'bigint', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('api_items_pk', ['collection', 'id'])
        .execute();
    },
  },
  '002_dpop_proofs': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('api_dpop_proofs')
        .addColumn('jkt', 'text', (c) => c.notNull())
        .addColumn('jti', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('api_dpop_proofs_pk', ['jkt', 'jti'])
        .execute();
      await db.schema.createIndex('api_dpop_proofs_expires_at').on('api_dpop_proofs').column('expires_at').execute();
    },
  },
};
