import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import type { ChangeListener, Database } from '@gatehouse/db';
import { createTestDatabase, onEngine, type TestDatabase } from '@gatehouse/db/testing';
import { CLIENT_CHANGES_CHANNEL, createClientChangeTracker, reportingChange } from '../../src/clients/client-change-tracker.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';
import type { AuthSchema } from '../../src/storage/schema.ts';

describe('createClientChangeTracker', () => {
  it('has no version without a source, or while the source has none', () => {
    expect(createClientChangeTracker(undefined).version()).toBeUndefined();
    let source: number | undefined;
    const tracker = createClientChangeTracker(() => source);
    expect(tracker.version()).toBeUndefined();
    source = 7;
    expect(tracker.version()).toEqual(expect.any(Number));
  });

  it('keeps its version while the source stays, and moves it when the source moves or this process wrote', () => {
    let source = 3;
    const tracker = createClientChangeTracker(() => source);
    const first = tracker.version();
    expect(tracker.version()).toBe(first);
    source = 4;
    const second = tracker.version();
    expect(second).not.toBe(first);
    expect(tracker.version()).toBe(second);
    tracker.changed();
    const third = tracker.version();
    expect([first, second]).not.toContain(third);
    expect(tracker.version()).toBe(third);
  });

  it('never gives back a version it gave before the source had none', () => {
    let source: number | undefined = 1;
    const tracker = createClientChangeTracker(() => source);
    const before = tracker.version();
    source = undefined;
    expect(tracker.version()).toBeUndefined();
    // A listener that listens again moves its own version (pg-change-listener.ts).
    source = 2;
    expect(tracker.version()).not.toBe(before);
  });
});

describe('reportingChange', () => {
  it('reports the write once it has run, whether it succeeded or failed', async () => {
    const seen: string[] = [];
    const changes = { changed: () => seen.push('changed') };
    expect(await reportingChange(changes, async () => {
      seen.push('write');
      return 42;
    })).toBe(42);
    expect(seen).toEqual(['write', 'changed']);
    await expect(reportingChange(changes, () => Promise.reject(new Error('constraint')))).rejects.toThrow('constraint');
    expect(seen).toEqual(['write', 'changed', 'changed']);
    expect(await reportingChange(undefined, async () => 'no tracker')).toBe('no tracker');
  });
});

describe('migration 016: client changes notify on PostgreSQL', () => {
  let target: TestDatabase;
  let database: Database<AuthSchema>;
  let listener: ChangeListener;
  beforeAll(async () => {
    target = await createTestDatabase('postgres');
    database = await openAuthDatabase(target.url);
    listener = onEngine(database, 'postgres').listen(CLIENT_CHANGES_CHANNEL);
    await listener.listening();
  });
  afterAll(async () => {
    await database.close();
    await target.drop();
  });

  /** Runs `statement` and waits until it was heard; fails if it was not. */
  async function heardAfter(statement: string): Promise<void> {
    const before = listener.version();
    await sql.raw(statement).execute(database.db);
    await vi.waitFor(() => expect(listener.version()).not.toBe(before));
  }

  it.each([
    "insert into clients (client_id, redirect_uris, post_logout_redirect_uris, public, token_endpoint_auth_method, grant_types, name, created_at) values ('c1', '[]', '[]', 1, 'none', '[\"client_credentials\"]', 'C1', 1)",
    "update clients set name = 'C one' where client_id = 'c1'",
    "update clients set name = 'nobody' where client_id = 'no-such-client'",
    "delete from clients where client_id = 'c1'",
    // CASCADE: consent records (migration 019) reference their client.
    'truncate clients cascade',
    "insert into scope_policies (scope, groups, updated_at) values ('movies:write', '[\"editors\"]', 1)",
    "update scope_policies set groups = '[]' where scope = 'movies:write'",
    "delete from scope_policies where scope = 'movies:write'",
  ])('%s', async (statement) => {
    await heardAfter(statement);
  });

  it('a rolled-back change is not heard; other tables are not either', async () => {
    const before = listener.version();
    await database.db
      .transaction()
      .execute(async (trx) => {
        await sql`update clients set name = 'x'`.execute(trx);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await sql`insert into regulation_failures (id, key, at_ms) values ('r1', 'k', 1)`.execute(database.db);
    // Heard in commit order: once this one is heard, the ones before it would have been.
    await heardAfter("update scope_policies set groups = '[]'");
    expect(listener.version()).toBe(before! + 1);
  });
});
