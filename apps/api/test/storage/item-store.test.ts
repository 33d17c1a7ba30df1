import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, type Database } from '@gatehouse/db';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { apiMigrations } from '../../src/storage/migrations.ts';
import { createItemStore, type ItemStore } from '../../src/storage/item-store.ts';
import type { ApiSchema } from '../../src/storage/schema.ts';

describe.each(TEST_ENGINES)('item store on %s', (engine) => {
  let target: TestDatabase;
  let database: Database<ApiSchema>;
  let store: ItemStore;

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = openDatabase<ApiSchema>(target.url);
    expect(await migrateToLatest(database.db as Kysely<unknown>, 'api', apiMigrations)).toEqual(['001_items', '002_dpop_proofs']);
    store = createItemStore(database.db, database.engine === 'sqlite' ? database : undefined);
  });
  afterAll(async () => {
    await database.close();
    await target.drop();
  });

  it('creates, refuses a duplicate id, reads, replaces and removes, per collection', async () => {
    expect(await store.create('movies', { id: 7, title: 'Alien' }, 1_000)).toBe(true);
    expect(await store.create('movies', { id: 7, title: 'Other' }, 2_000)).toBe(false);
    expect(await store.create('cars', { id: 7, model: 'Ka' }, 2_000)).toBe(true);
    expect(await store.get('movies', 7)).toEqual({ id: 7, title: 'Alien' });
    expect(await store.get('cars', 7)).toEqual({ id: 7, model: 'Ka' });
    expect(await store.get('movies', 8)).toBeUndefined();
    // SQLite answers the same read at once (the pre-routed item read uses it); PostgreSQL has none.
    if (engine === 'sqlite') {
      expect(store.getJsonNow!('movies', 7)).toBe(JSON.stringify({ id: 7, title: 'Alien' }));
      expect(store.getJsonNow!('cars', 7)).toBe(JSON.stringify({ id: 7, model: 'Ka' }));
      expect(store.getJsonNow!('movies', 8)).toBeUndefined();
      // The text is what JSON.stringify gives for the item get answers, for any stored fields.
      expect(await store.create('odd', { id: 3 }, 1_000)).toBe(true);
      expect(await store.create('odd', { id: 4, title: 'é "q" \u2028 <&> \\ \ud83c\udfac', n: 1.5e-7, b: true }, 1_000)).toBe(true);
      for (const id of [3, 4]) expect(store.getJsonNow!('odd', id)).toBe(JSON.stringify(await store.get('odd', id)));
    } else {
      expect(store.getJsonNow).toBeUndefined();
    }

    expect(await store.replace('movies', { id: 7, title: 'Aliens' }, 3_000)).toBe(true);
    expect(await store.replace('movies', { id: 9, title: 'Nope' }, 3_000)).toBe(false);
    expect(await store.get('movies', 7)).toEqual({ id: 7, title: 'Aliens' });
    const row = await database.db.selectFrom('api_items').selectAll().where('collection', '=', 'movies').executeTakeFirstOrThrow();
    expect({ created: Number(row.created_at), updated: Number(row.updated_at) }).toEqual({ created: 1_000, updated: 3_000 });

    expect(await store.remove('movies', 7)).toBe(true);
    expect(await store.remove('movies', 7)).toBe(false);
    expect(await store.get('movies', 7)).toBeUndefined();
    expect(await store.get('cars', 7)).toEqual({ id: 7, model: 'Ka' });
  });

  it('pages by id, keyed on the last id seen', async () => {
    for (const id of [30, 10, 20, 50, 40]) await store.create('customers', { id, name: `c${id}` }, 1);
    expect((await store.list('customers', { after: 0, limit: 2 })).map((i) => i.id)).toEqual([10, 20]);
    expect((await store.list('customers', { after: 20, limit: 2 })).map((i) => i.id)).toEqual([30, 40]);
    expect(await store.list('customers', { after: 40, limit: 2 })).toEqual([{ id: 50, name: 'c50' }]);
    expect(await store.list('customers', { after: 50, limit: 2 })).toEqual([]);
    expect(await store.list('nothing', { after: 0, limit: 2 })).toEqual([]);
  });

  it('keeps large ids exact', async () => {
    const id = Number.MAX_SAFE_INTEGER;
    expect(await store.create('users', { id, username: 'max' }, 1)).toBe(true);
    expect(await store.get('users', id)).toEqual({ id, username: 'max' });
  });

  it('answers a ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('answers an item at once as stored now (SQLite): after its own writes, and another process’s from the next turn', async () => {
    if (engine === 'postgres') {
      expect(store.getJsonNow).toBeUndefined();
      return;
    }
    await store.create('shows', { id: 1, title: 'first' }, 1);
    expect(store.getJsonNow!('shows', 1)).toBe('{"id":1,"title":"first"}');
    expect(store.getJsonNow!('shows', 1)).toBe('{"id":1,"title":"first"}');
    await store.replace('shows', { id: 1, title: 'second' }, 2);
    expect(store.getJsonNow!('shows', 1)).toBe('{"id":1,"title":"second"}');
    await store.remove('shows', 1);
    expect(store.getJsonNow!('shows', 1)).toBeUndefined();
    await store.create('shows', { id: 1, title: 'third' }, 3);
    expect(store.getJsonNow!('shows', 1)).toBe('{"id":1,"title":"third"}');

    // Another process on the same file (the operator's tools, a second instance).
    const other = new DatabaseSync(target.url.slice('sqlite:'.length));
    try {
      other.exec(`update api_items set data = '{"title":"elsewhere"}' where collection = 'shows' and id = 1`);
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(store.getJsonNow!('shows', 1)).toBe('{"id":1,"title":"elsewhere"}');
      other.exec(`delete from api_items where collection = 'shows' and id = 1`);
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(store.getJsonNow!('shows', 1)).toBeUndefined();
    } finally {
      other.close();
    }
  });
});
