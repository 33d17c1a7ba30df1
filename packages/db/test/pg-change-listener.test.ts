import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { openDatabase, type ChangeListener } from '../src/index.ts';
import { listenForChanges } from '../src/pg-change-listener.ts';
import { createPostgresOutage, createTestDatabase, onEngine, type TestDatabase } from '../src/testing.ts';

const CHANNEL = 'gatehouse_test_changes';

describe('listenForChanges (PostgreSQL)', () => {
  let database: TestDatabase;
  let notifier: pg.Client;
  const opened: ChangeListener[] = [];
  const listen = (url: string, options: Parameters<typeof listenForChanges>[3] = {}) => {
    const listener = listenForChanges(pg, url, CHANNEL, options);
    opened.push(listener);
    return listener;
  };
  /** Sends `count` notifications on `channel`, each in its own transaction. */
  const notify = async (channel = CHANNEL, count = 1) => {
    for (let i = 0; i < count; i++) await notifier.query('select pg_notify($1, $2)', [channel, '']);
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    notifier = new pg.Client({ connectionString: database.url });
    await notifier.connect();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((listener) => listener.close()));
  });
  afterAll(async () => {
    await notifier.end();
    await database.drop();
  });

  it('has no version until it listens, then one that moves with each notification on its channel only', async () => {
    const listener = listen(database.url);
    expect(listener.version()).toBeUndefined();
    await listener.listening();
    const start = listener.version();
    expect(start).toEqual(expect.any(Number));
    await notify();
    await vi.waitFor(() => expect(listener.version()).toBe(start! + 1));
    // Notifications arrive in commit order: once the last one counted, the others were seen.
    await notify('another_channel', 3);
    await notify(CHANNEL, 2);
    await vi.waitFor(() => expect(listener.version()).toBe(start! + 3));
  });

  it('hears a commit, not a transaction still open or rolled back', async () => {
    const listener = listen(database.url);
    await listener.listening();
    const start = listener.version()!;
    await notifier.query('begin');
    await notifier.query('select pg_notify($1, $2)', [CHANNEL, '']);
    await notifier.query('rollback');
    await notifier.query('begin');
    await notifier.query('select pg_notify($1, $2)', [CHANNEL, '']);
    await notifier.query('commit');
    await vi.waitFor(() => expect(listener.version()).toBe(start + 1));
  });

  it('has no version while its connection is down, and a new one once it listens again', async () => {
    const outage = await createPostgresOutage(database.url);
    const lost: string[] = [];
    let relistened = 0;
    const listener = listen(outage.url, { retryMs: 20, onLost: (error) => lost.push(error.message), onListening: () => relistened++ });
    try {
      await listener.listening();
      const before = listener.version()!;
      await outage.down();
      await vi.waitFor(() => expect(listener.version()).toBeUndefined());
      // Retried every 20 ms while refused: reported once.
      await vi.waitFor(() => expect(lost).toHaveLength(1));
      await outage.up();
      await listener.listening();
      expect(listener.version()).toBeGreaterThan(before);
      expect(relistened).toBe(1);
      expect(lost).toHaveLength(1);
      const now = listener.version()!;
      await notify();
      await vi.waitFor(() => expect(listener.version()).toBe(now + 1));
    } finally {
      await outage.close();
    }
  });

  it('drops a connection that stops answering (no error, no close) and listens again on a new one', async () => {
    const outage = await createPostgresOutage(database.url);
    const lost: string[] = [];
    const listener = listen(outage.url, { retryMs: 20, heartbeatMs: 50, onLost: (error) => lost.push(error.message) });
    try {
      await listener.listening();
      const before = listener.version()!;
      outage.freeze();
      await vi.waitFor(() => expect(lost).toEqual(['no answer to the heartbeat within 50 ms']));
      await listener.listening();
      expect(listener.version()).toBeGreaterThan(before);
    } finally {
      await outage.close();
    }
  });

  it('after close(): no version and no reconnection; Database.close() closes the listeners it opened', async () => {
    const listener = listen(database.url);
    await listener.listening();
    await listener.close();
    expect(listener.version()).toBeUndefined();
    await notify();

    const db = openDatabase(database.url);
    const fromDatabase = onEngine(db, 'postgres').listen(CHANNEL);
    await fromDatabase.listening();
    expect(fromDatabase.version()).toEqual(expect.any(Number));
    await db.close();
    expect(fromDatabase.version()).toBeUndefined();
    const others = async () => (await notifier.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')).rows[0]!.n;
    await vi.waitFor(async () => expect(await others()).toBe(0));
  });

  it('is PostgreSQL only', async () => {
    const sqlite = await createTestDatabase('sqlite');
    const db = openDatabase(sqlite.url);
    expect(db.engine).toBe('sqlite');
    expect('listen' in db).toBe(false);
    await db.close();
    await sqlite.drop();
  });
});
