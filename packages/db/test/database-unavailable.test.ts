import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { isDatabaseUnavailable, openDatabase, type Database } from '../src/index.ts';
import { createPostgresOutage, createTestDatabase, type PostgresOutage, type TestDatabase } from '../src/testing.ts';

describe('a PostgreSQL outage', () => {
  let target: TestDatabase;
  let outage: PostgresOutage;
  let database: Database;
  const errors: Error[] = [];

  beforeAll(async () => {
    target = await createTestDatabase('postgres');
    outage = await createPostgresOutage(target.url);
    database = openDatabase(outage.url, { onConnectionError: (e) => errors.push(e), connectTimeoutMs: 2_000 });
  });
  afterAll(async () => {
    await database.close();
    await outage.close();
    await target.drop();
  });

  it('fails queries with errors recognised as unavailable, then recovers by itself', async () => {
    expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows).toEqual([{ one: 1 }]);
    await outage.down();
    const failure = await sql`select 1`.execute(database.db).then(() => undefined, (e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(failure)).toBe(true);
    await outage.up();
    expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows).toEqual([{ one: 1 }]);
  });

  it('does not mistake a bad query or a constraint violation for an outage', async () => {
    const bad = await sql`select * from no_such_table`.execute(database.db).then(() => undefined, (e: unknown) => e);
    expect(isDatabaseUnavailable(bad)).toBe(false);
    expect(isDatabaseUnavailable(new Error('duplicate key value violates unique constraint'))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '57P01' }))).toBe(true);
    // 0A000 is "feature not supported": only the stale prepared statement is momentary.
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '0A000' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '0A000', routine: 'RevalidateCachedQuery' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('outer', { cause: Object.assign(new Error('inner'), { code: 'ECONNREFUSED' }) }))).toBe(true);
  });
});
