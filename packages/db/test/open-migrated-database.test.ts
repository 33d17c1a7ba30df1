import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { databaseUrlProblem, openDatabase, openMigratedDatabase, pendingMigrations, SchemaBehindError, type Migrations } from '../src/index.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '../src/testing.ts';

interface Schema {
  notes: { id: number; text: string };
}

const notes: Migrations = {
  '001_notes': {
    async up(db: Kysely<unknown>) {
      await db.schema.createTable('notes').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('text', 'text', (c) => c.notNull()).execute();
    },
  },
};
const app = { app: 'demo', migrations: notes, command: 'demo migrate', setting: 'DEMO_MIGRATE' };

describe.each(TEST_ENGINES)('openMigratedDatabase on %s', (engine) => {
  let target: TestDatabase | undefined;
  afterEach(async () => {
    await target?.drop();
    target = undefined;
  });

  it('applies pending migrations by default and returns a usable database', async () => {
    target = await createTestDatabase(engine);
    const database = await openMigratedDatabase<Schema>(target.url, app);
    try {
      expect(database.engine).toBe(engine);
      await database.db.insertInto('notes').values({ id: 1, text: 'hello' }).execute();
      expect(await database.db.selectFrom('notes').selectAll().execute()).toEqual([{ id: 1, text: 'hello' }]);
      expect(await pendingMigrations(database.db as Kysely<unknown>, 'demo', notes)).toEqual([]);
    } finally {
      await database.close();
    }
    // A second open (a restart) finds nothing to do and keeps the data.
    const again = await openMigratedDatabase<Schema>(target.url, app, { migrate: 'manual' });
    expect(await again.db.selectFrom('notes').select('text').execute()).toEqual([{ text: 'hello' }]);
    await again.close();
  });

  it('manual mode refuses a schema that is behind, naming the command and the setting, and leaves it untouched', async () => {
    target = await createTestDatabase(engine);
    const error = await openMigratedDatabase(target.url, app, { migrate: 'manual' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaBehindError);
    expect((error as SchemaBehindError).message).toBe(
      'the demo database schema is behind (1 pending migration: 001_notes); run `demo migrate` first, or set DEMO_MIGRATE=auto',
    );
    const raw = openDatabase(target.url);
    expect(await pendingMigrations(raw.db, 'demo', notes)).toEqual(['001_notes']);
    await raw.close();
  });
});

describe('databaseUrlProblem', () => {
  it('accepts both engines and names the accepted forms otherwise, password redacted', () => {
    expect(databaseUrlProblem('sqlite:./data/a.db')).toBeUndefined();
    expect(databaseUrlProblem('sqlite::memory:')).toBeUndefined();
    expect(databaseUrlProblem('postgresql://u@h/d')).toBeUndefined();
    expect(databaseUrlProblem('mysql://u:secret@h/d')).toBe(
      'unsupported database URL "mysql://u:***@h/d": use sqlite:<file>, sqlite::memory: or postgres://user@host:port/db',
    );
    expect(databaseUrlProblem('sqlite:')).toBe('sqlite URL needs a file path, e.g. sqlite:./data/app.db or sqlite::memory:');
  });
});
