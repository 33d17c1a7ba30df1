import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createRegulationStore } from '../../src/regulation/regulation-store.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const T = 1_790_000_000_000;

describe.each(TEST_ENGINES)('regulation store on %s', (engine) => {
  const database = useAuthDatabase(engine);

  it('returns a key’s failures since a time, ascending, and nobody else’s', async () => {
    const store = createRegulationStore(database.db);
    await store.recordFailure('account:alice', T + 300);
    await store.recordFailure('account:alice', T + 100);
    await store.recordFailure('account:alice', T + 100);
    await store.recordFailure('account:alice', T + 200);
    await store.recordFailure('ip:127.0.0.1', T + 150);
    expect(await store.failuresSince('account:alice', T)).toEqual([T + 100, T + 100, T + 200, T + 300]);
    expect(await store.failuresSince('account:alice', T + 200)).toEqual([T + 200, T + 300]);
    expect(await store.failuresSince('ip:127.0.0.1', T)).toEqual([T + 150]);
    expect(await store.failuresSince('account:bob', T)).toEqual([]);
  });

  it('purges failures older than a time and says how many', async () => {
    const store = createRegulationStore(database.db);
    expect(await store.purgeBefore(T + 200)).toBe(3);
    expect(await store.failuresSince('account:alice', 0)).toEqual([T + 200, T + 300]);
    expect(await store.failuresSince('ip:127.0.0.1', 0)).toEqual([]);
    expect(await store.purgeBefore(T + 200)).toBe(0);
  });
});
