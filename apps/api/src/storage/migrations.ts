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
};
