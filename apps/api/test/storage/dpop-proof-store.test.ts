import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, type Database } from '@gatehouse/db';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { apiMigrations } from '../../src/storage/migrations.ts';
import { createDpopProofStore, type DpopProofStore } from '../../src/storage/dpop-proof-store.ts';
import type { ApiSchema } from '../../src/storage/schema.ts';

describe.each(TEST_ENGINES)('DPoP proof store on %s', (engine) => {
  let target: TestDatabase;
  // Two connections to one database: two API instances.
  let first: Database<ApiSchema>;
  let second: Database<ApiSchema>;
  let a: DpopProofStore;
  let b: DpopProofStore;

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    first = openDatabase<ApiSchema>(target.url);
    await migrateToLatest(first.db as Kysely<unknown>, 'api', apiMigrations);
    second = openDatabase<ApiSchema>(target.url);
    a = createDpopProofStore(first.db);
    b = createDpopProofStore(second.db);
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await target.drop();
  });

  it('records a proof once, whichever instance sees it again', async () => {
    expect(await a.remember('key-1', 'jti-1', 10_000)).toBe(true);
    expect(await b.remember('key-1', 'jti-1', 10_000)).toBe(false);
    expect(await a.remember('key-1', 'jti-1', 10_000)).toBe(false);
    // Another key, or another jti, is another proof.
    expect(await b.remember('key-2', 'jti-1', 10_000)).toBe(true);
    expect(await b.remember('key-1', 'jti-2', 20_000)).toBe(true);
  });

  it('answers a race on one proof with exactly one acceptance', async () => {
    const answers = await Promise.all([a.remember('key-3', 'race', 10_000), b.remember('key-3', 'race', 10_000), a.remember('key-3', 'race', 10_000)]);
    expect(answers.filter(Boolean)).toEqual([true]);
  });

  it('purges only what expired', async () => {
    expect(await b.purgeExpired(10_000)).toBe(0);
    expect(await a.purgeExpired(10_001)).toBe(3);
    expect(await a.remember('key-1', 'jti-1', 30_000)).toBe(true);
    expect(await b.remember('key-1', 'jti-2', 30_000)).toBe(false);
    expect(await b.purgeExpired(Number.MAX_SAFE_INTEGER)).toBe(2);
  });
});
