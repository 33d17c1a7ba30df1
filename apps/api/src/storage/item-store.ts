/**
 * Items of every collection, keyed by (collection, id). Rules:
 * - a create never overwrites: a second item with the same id is reported as a conflict
 *   (insert … on conflict do nothing, so two racing creates cannot both succeed);
 * - lists are ordered by id and paged by key (`after` the last id seen), so a page is
 *   stable while items are added or removed;
 * - fields other than `id` are stored as one JSON object, so adding a collection or a field
 *   is a configuration change, not a migration;
 * - each query is compiled once, when the store is created (precompile below).
 */
import { sql, type Compilable, type Kysely, type QueryResult } from 'kysely';
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

/**
 * A query built and compiled once, run with new values on each call: building and compiling a
 * Kysely query cost about as much as running it (pnpm bench, API read profile). Each value is
 * found in the compiled parameters by a sentinel standing in for it, so the order Kysely gives
 * the parameters does not matter, and a query whose values did not all become parameters is
 * refused when the store is created, not on a request.
 */
function precompile<K extends string, R>(db: Kysely<ApiSchema>, names: readonly K[], build: (values: Record<K, never>) => Compilable<R>) {
  const sentinels = Object.fromEntries(names.map((name) => [name, `\u0000${name}\u0000`])) as unknown as Record<K, never>;
  const compiled = build(sentinels).compile();
  const order = compiled.parameters.map((value) => {
    const name = names.find((n) => sentinels[n] === value);
    if (name === undefined) throw new Error(`precompiled query has a parameter that is not a named value: ${compiled.sql}`);
    return name;
  });
  for (const name of names) if (!order.includes(name)) throw new Error(`precompiled query does not use "${name}" as a parameter: ${compiled.sql}`);
  return (values: Readonly<Record<K, unknown>>): Promise<QueryResult<R>> => db.executeQuery<R>({ ...compiled, parameters: order.map((name) => values[name]) });
}

export function createItemStore(db: Kysely<ApiSchema>): ItemStore {
  const list = precompile(db, ['collection', 'after', 'limit'], (v) =>
    db.selectFrom('api_items').select(['id', 'data']).where('collection', '=', v.collection).where('id', '>', v.after).orderBy('id').limit(v.limit),
  );
  const get = precompile(db, ['collection', 'id'], (v) => db.selectFrom('api_items').select(['id', 'data']).where('collection', '=', v.collection).where('id', '=', v.id));
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
