/**
 * Items of every collection, keyed by (collection, id). Rules:
 * - a create never overwrites: a second item with the same id is reported as a conflict
 *   (insert … on conflict do nothing, so two racing creates cannot both succeed);
 * - lists are ordered by id and paged by key (`after` the last id seen), so a page is
 *   stable while items are added or removed;
 * - fields other than `id` are stored as one JSON object, so adding a collection or a field
 *   is a configuration change, not a migration;
 * - each query is compiled once, when the store is created (`precompile` of @gatehouse/db);
 * - on SQLite, `getJsonNow` reads one item at once, without a promise (Database.readNow), for the
 *   pre-routed item read; the store opens no transaction, so it sees only committed rows. Its
 *   answers are kept while the database is unchanged (item-json-cache.ts).
 */
import { sql, type Kysely, type QueryResult } from 'kysely';
import { precompile, precompileReadNow, type SqliteDatabase } from '@gatehouse/db';
import type { Item, ItemValue } from '../collections/item-validator.ts';
import { itemJsonCache, type ItemJsonCacheLimits } from './item-json-cache.ts';
import type { ApiSchema } from './schema.ts';

export interface ItemStore {
  /** Up to `limit` items with an id greater than `after`, in id order. */
  list(collection: string, page: { after: number; limit: number }): Promise<Item[]>;
  get(collection: string, id: number): Promise<Item | undefined>;
  /**
   * SQLite only: the same read as {@link get}, answered at once, as the item's JSON text (what
   * `JSON.stringify(item)` gives: `id` first, then the stored fields in their order).
   */
  readonly getJsonNow?: (collection: string, id: number) => string | undefined;
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

/** The JSON text of an item from its row, without parsing the stored fields: they are JSON.stringify's output. */
function itemJson(row: { id: number | string | bigint; data: string }): string {
  const id = Number(row.id);
  return row.data === '{}' ? `{"id":${id}}` : `{"id":${id},${row.data.slice(1)}`;
}

function dataOf(item: Item): string {
  const { id: _id, ...fields } = item;
  return JSON.stringify(fields);
}

/** SQLite's reads at once and the version of what they see (PostgreSQL has none). */
export type ImmediateReads = Pick<SqliteDatabase, 'readNow' | 'readNowVersion'>;

export function createItemStore(db: Kysely<ApiSchema>, immediate?: ImmediateReads, cacheLimits?: ItemJsonCacheLimits): ItemStore {
  const { readNow, readNowVersion } = immediate ?? {};
  const list = precompile(db, ['collection', 'after', 'limit'], (v) =>
    db.selectFrom('api_items').select(['id', 'data']).where('collection', '=', v.collection).where('id', '>', v.after).orderBy('id').limit(v.limit),
  );
  const selectItem = (v: Record<'collection' | 'id', never>) => db.selectFrom('api_items').select(['id', 'data']).where('collection', '=', v.collection).where('id', '=', v.id);
  const get = precompile(db, ['collection', 'id'], selectItem);
  const getNow = readNow && precompileReadNow(readNow, ['collection', 'id'], selectItem);
  const cache = getNow && readNowVersion && itemJsonCache(readNowVersion, cacheLimits);
  const create = precompile(db, ['collection', 'id', 'data', 'now'], (v) =>
    db
      .insertInto('api_items')
      .values({ collection: v.collection, id: v.id, data: v.data, created_at: v.now, updated_at: v.now })
      .onConflict((oc) => oc.columns(['collection', 'id']).doNothing()),
  );
  const replace = precompile(db, ['collection', 'id', 'data', 'now'], (v) =>
    db.updateTable('api_items').set({ data: v.data, updated_at: v.now }).where('collection', '=', v.collection).where('id', '=', v.id),
  );
  const remove = precompile(db, ['collection', 'id'], (v) => db.deleteFrom('api_items').where('collection', '=', v.collection).where('id', '=', v.id));
  const affected = (result: QueryResult<unknown>): number => Number(result.numAffectedRows ?? 0);

  return {
    async list(collection, { after, limit }) {
      return (await list({ collection, after, limit })).rows.map(toItem);
    },
    async get(collection, id) {
      const row = (await get({ collection, id })).rows[0];
      return row ? toItem(row) : undefined;
    },
    ...(getNow &&
      cache && {
        getJsonNow(collection: string, id: number) {
          return cache.get(collection, id, () => {
            const row = getNow({ collection, id })[0];
            return row ? itemJson(row) : undefined;
          });
        },
      }),
    async create(collection, item, now) {
      return affected(await create({ collection, id: item.id, data: dataOf(item), now })) === 1;
    },
    async replace(collection, item, now) {
      return affected(await replace({ collection, id: item.id, data: dataOf(item), now })) === 1;
    },
    async remove(collection, id) {
      return affected(await remove({ collection, id })) === 1;
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
  };
}
