/**
 * Items of every collection, keyed by (collection, id). Rules:
 * - a create never overwrites: a second item with the same id is reported as a conflict
 *   (insert … on conflict do nothing, so two racing creates cannot both succeed);
 * - lists are ordered by id and paged by key (`after` the last id seen), so a page is
 *   stable while items are added or removed;
 * - fields other than `id` are stored as one JSON object, so adding a collection or a field
 *   is a configuration change, not a migration.
 */
import { sql, type Kysely } from 'kysely';
import type { Item, ItemValue } from '../collections/item-validator.ts';
import type { ApiSchema } from './schema.ts';

export interface ItemStore {
  /** Up to `limit` items with an id greater than `after`, in id order. */
  list(collection: string, page: { after: number; limit: number }): Promise<Item[]>;
  get(collection: string, id: number): Promise<Item | undefined>;
  /** Stores a new item; false when the id is taken. */
  create(collection: string, item: Item, now: number): Promise<boolean>;
  /** Replaces an existing item; false when there is none with that id. */
  replace(collection: string, item: Item, now: number): Promise<boolean>;
  /** Removes an item; false when there is none with that id. */
  remove(collection: string, id: number): Promise<boolean>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
}

function toItem(row: { id: number | string | bigint; data: string }): Item {
  const fields = JSON.parse(row.data) as Record<string, ItemValue>;
  return { id: Number(row.id), ...fields };
}

function dataOf(item: Item): string {
  const { id: _id, ...fields } = item;
  return JSON.stringify(fields);
}

export function createItemStore(db: Kysely<ApiSchema>): ItemStore {
  return {
    async list(collection, { after, limit }) {
      const rows = await db
        .selectFrom('api_items')
        .select(['id', 'data'])
        .where('collection', '=', collection)
        .where('id', '>', after)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toItem);
    },
    async get(collection, id) {
      const row = await db
        .selectFrom('api_items')
        .select(['id', 'data'])
        .where('collection', '=', collection)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toItem(row) : undefined;
    },
    async create(collection, item, now) {
      const result = await db
        .insertInto('api_items')
        .values({ collection, id: item.id, data: dataOf(item), created_at: now, updated_at: now })
        .onConflict((oc) => oc.columns(['collection', 'id']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    async replace(collection, item, now) {
      const result = await db
        .updateTable('api_items')
        .set({ data: dataOf(item), updated_at: now })
        .where('collection', '=', collection)
        .where('id', '=', item.id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async remove(collection, id) {
      const result = await db.deleteFrom('api_items').where('collection', '=', collection).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
  };
}
