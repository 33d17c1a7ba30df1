import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { MigrationError, openDatabase, pendingMigrations, prepareSchema, SchemaBehindError, type Database, type Migrations } from '../src/index.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '../src/testing.ts';

const table = (name: string) => ({
  async up(db: Kysely<unknown>) {
    await db.schema.createTable(name).addColumn('id', 'integer', (c) => c.primaryKey()).execute();
  },
});
const v1: Migrations = { '001_a': table('a') };
const v2: Migrations = { ...v1, '002_b': table('b'), '003_c': table('c') };
const options = { command: 'authctl db migrate', setting: 'AUTH_MIGRATE' };

describe.each(TEST_ENGINES)('migrations as their own step on %s', (engine) => {
  let target: TestDatabase | undefined;
  const open: Database[] = [];
  afterEach(async () => {
    for (const database of open.splice(0)) await database.close();
    await target?.drop();
  });
  const connect = () => {
    const database = openDatabase(target!.url);
    open.push(database);
    return database.db;
  };

  it('manual mode refuses a schema that is behind, naming what is pending and how to apply it; auto applies it', async () => {
    target = await createTestDatabase(engine);
    const db = connect();
    expect(await pendingMigrations(db, 'app', v1)).toEqual(['001_a']);
    await prepareSchema(db, 'app', v1, { mode: 'auto', ...options });
    expect(await pendingMigrations(db, 'app', v2)).toEqual(['002_b', '003_c']);
    const error = await prepareSchema(db, 'app', v2, { mode: 'manual', ...options }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaBehindError);
    expect((error as SchemaBehindError).message).toBe(
      'the app database schema is behind (2 pending migrations: 002_b, 003_c); run `authctl db migrate` first, or set AUTH_MIGRATE=auto',
    );
    expect((error as SchemaBehindError).pending).toEqual(['002_b', '003_c']);
    await prepareSchema(db, 'app', v2, { mode: 'auto', ...options });
    await expect(prepareSchema(db, 'app', v2, { mode: 'manual', ...options })).resolves.toBeUndefined();
    expect(await pendingMigrations(db, 'app', v2)).toEqual([]);
  });

  it('a migration that fails halfway leaves the database as before the run, and the fixed run applies it', async () => {
    target = await createTestDatabase(engine);
    const db = connect();
    const halfway: Migrations = {
      ...v1,
      '002_b': {
        async up(db: Kysely<unknown>) {
          await db.schema.createTable('b').addColumn('id', 'integer', (c) => c.primaryKey()).execute();
          throw new Error('second statement refused');
        },
      },
    };
    const error = await prepareSchema(db, 'app', halfway, { mode: 'auto', ...options }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).message).toBe('migration 002_b of app failed: second statement refused');
    expect(await pendingMigrations(db, 'app', halfway)).toEqual(['001_a', '002_b']);
    const tables = (await db.introspection.getTables()).map((t) => t.name).filter((name) => !name.startsWith('app_migrations'));
    expect(tables).toEqual([]);
    await prepareSchema(db, 'app', { ...v1, '002_b': table('b') }, { mode: 'auto', ...options });
    expect(await pendingMigrations(db, 'app', { ...v1, '002_b': table('b') })).toEqual([]);
    expect((await db.introspection.getTables()).map((t) => t.name).filter((name) => !name.startsWith('app_migrations')).sort()).toEqual(['a', 'b']);
  });

});

// Several instances share a database only on PostgreSQL (SQLite is the single-instance embedded engine).
describe('several instances starting at once on postgres', () => {
  let target: TestDatabase | undefined;
  const open: Database[] = [];
  afterEach(async () => {
    for (const database of open.splice(0)) await database.close();
    await target?.drop();
  });

  it('several instances migrating at once never race: each migration runs exactly once', async () => {
    target = await createTestDatabase('postgres');
    const instances = [connectPg(), connectPg(), connectPg(), connectPg()];
    const ran: string[] = [];
    const counted: Migrations = Object.fromEntries(
      Object.entries(v2).map(([name, m]) => [name, { up: async (db: Kysely<unknown>) => { ran.push(name); await m.up(db); } }]),
    );
    await Promise.all(instances.map((db) => prepareSchema(db, 'app', counted, { mode: 'auto', ...options })));
    expect(ran).toEqual(['001_a', '002_b', '003_c']);
    expect(await pendingMigrations(instances[0]!, 'app', v2)).toEqual([]);
  });

  function connectPg() {
    const database = openDatabase(target!.url);
    open.push(database);
    return database.db;
  }
});
