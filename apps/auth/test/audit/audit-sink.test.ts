/** Every event an auditor with a sink records is stored, in order; a failed write is a warning, never an error to the caller. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { TEST_ENGINES, createPostgresOutage, createTestDatabase, recordStatements } from '@gatehouse/db/testing';
import { Registry } from '@gatehouse/metrics';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';
import { createAuditEventStore } from '../../src/audit/audit-event-store.ts';
import { createAuditSink } from '../../src/audit/audit-sink.ts';
import { createAuditor } from '../../src/audit/auditor.ts';
import { createAuditSpool } from '../../src/audit/audit-spool.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const T = Date.parse('2026-11-21T08:00:00.000Z');

const spoolDirectories: string[] = [];
/** A fresh directory for a spool (removed after the file's tests). */
function spoolDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'gatehouse-audit-spool-'));
  spoolDirectories.push(directory);
  return join(directory, 'audit-spool');
}
afterAll(() => {
  for (const directory of spoolDirectories) rmSync(directory, { recursive: true, force: true });
});

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
  return { lines, logger };
}

describe.each(TEST_ENGINES)('audit sink on %s', (engine) => {
  const database = useAuthDatabase(engine);

  it('on a SQLite file, a batch commits without waiting for the disk on the event loop, and is appended once the log is synced', async () => {
    const deferred = database.deferredSync;
    if (engine === 'postgres') {
      expect(deferred).toBeUndefined();
      return;
    }
    expect(deferred).toBeDefined();
    let openSync: () => void = () => {};
    let syncs = 0;
    const gated = {
      transaction: deferred!.transaction,
      sync: async () => {
        syncs += 1;
        await new Promise<void>((resolve) => (openSync = resolve));
        await deferred!.sync();
      },
    };
    const recorder = recordStatements(database.db as never);
    try {
      const store = createAuditEventStore(database.db, engine, gated);
      let appended = false;
      const append = store.append([{ occurredAt: T + 7, event: 'token.issued', accountId: null, username: null, clientId: 'deferred-client', actorKind: null, actor: null, ip: null, fields: { grant_type: 'client_credentials' } }]).then(() => (appended = true));
      for (let i = 0; i < 5 && syncs === 0; i += 1) await new Promise((resolve) => setImmediate(resolve));
      // Committed (visible) but not yet answered: the log sync runs in libuv's pool.
      expect(syncs).toBe(1);
      expect(appended).toBe(false);
      expect((await database.db.selectFrom('audit_events').select('client_id').where('client_id', '=', 'deferred-client').execute()).length).toBe(1);
      openSync();
      await append;
      expect(appended).toBe(true);
      const insert = recorder.statements.findIndex((text) => text.startsWith('insert into audit_events'));
      // The transaction's BEGIN and COMMIT run in the driver, between these.
      expect(recorder.statements.slice(insert - 1, insert + 2).map((text) => text.toLowerCase())).toEqual(['pragma synchronous = normal', expect.stringMatching(/^insert into audit_events/), 'pragma synchronous = full']);
      expect((await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(database.db)).rows[0]!.synchronous).toBe(2);
    } finally {
      recorder.stop();
      await database.db.deleteFrom('audit_events').where('client_id', '=', 'deferred-client').execute();
    }
  });

  it('stores what the auditor logs, in emission order, with the emission time; an auditor without a sink only logs', async () => {
    const { lines, logger: base } = capture();
    let now = T;
    const store = createAuditEventStore(database.db, engine);
    const sink = createAuditSink({ store, clock: () => now, logger: base });
    const auditor = createAuditor({ logger: base, sink });
    auditor.record('login.password.failure', { username: 'Alice', ip: '10.0.0.1' });
    now += 5;
    auditor.record('login.password.success', { account_id: 'acc-1', ip: '10.0.0.1' });
    auditor.record('login.mfa.success', { account_id: 'acc-1', ip: '10.0.0.1', method: 'push', push_id: 'p1' });
    auditor.record('token.issued', { client_id: undefined, grant_type: 'client_credentials' });
    auditor.record('admin.user.unlocked', { actor_kind: 'operator', actor: 'cli', account_id: 'acc-1', cleared: 3 });
    createAuditor({ logger: base }).record('session.logout', { client_id: 'app-one' });
    await sink.flush();
    expect(lines.filter((l) => l.audit === true).map((l) => l.event)).toEqual([
      'login.password.failure',
      'login.password.success',
      'login.mfa.success',
      'token.issued',
      'admin.user.unlocked',
      'session.logout',
    ]);
    const rows = await database.db.selectFrom('audit_events').selectAll().orderBy('id').execute();
    expect(rows.map((r) => ({ ...r, id: undefined, occurred_at: Number(r.occurred_at) }))).toEqual([
      { id: undefined, occurred_at: T, event: 'login.password.failure', account_id: null, username: 'alice', client_id: null, actor_kind: null, actor: null, ip: '10.0.0.1', fields: '{}', request_id: null },
      { id: undefined, occurred_at: T + 5, event: 'login.password.success', account_id: 'acc-1', username: null, client_id: null, actor_kind: null, actor: null, ip: '10.0.0.1', fields: '{}', request_id: null },
      { id: undefined, occurred_at: T + 5, event: 'login.mfa.success', account_id: 'acc-1', username: null, client_id: null, actor_kind: null, actor: null, ip: '10.0.0.1', fields: '{"method":"push","push_id":"p1"}', request_id: null },
      { id: undefined, occurred_at: T + 5, event: 'token.issued', account_id: null, username: null, client_id: null, actor_kind: null, actor: null, ip: null, fields: '{"grant_type":"client_credentials"}', request_id: null },
      { id: undefined, occurred_at: T + 5, event: 'admin.user.unlocked', account_id: 'acc-1', username: null, client_id: null, actor_kind: 'operator', actor: 'cli', ip: null, fields: '{"cleared":3}', request_id: null },
    ]);
    expect(rows.map((r) => Number(r.id))).toEqual([...rows.map((r) => Number(r.id))].sort((a, b) => a - b));
  });

  it('drops a field named like a credential, as the log redaction does', async () => {
    const { logger: base } = capture();
    const sink = createAuditSink({ store: createAuditEventStore(database.db, engine), clock: () => T + 100, logger: base });
    // A call site that slipped a secret in (the event's type would refuse it; the sink is the net).
    sink.record('login.password.failure', { username: 'bob', ip: '10.0.0.9', password: 'hunter2-hunter2', code: '123456', reason: 'kept' });
    await sink.flush();
    const row = await database.db.selectFrom('audit_events').selectAll().where('occurred_at', '=', T + 100).executeTakeFirstOrThrow();
    expect(row.fields).toBe('{"reason":"kept"}');
    expect(JSON.stringify(row)).not.toContain('hunter2');
    expect(JSON.stringify(row)).not.toContain('123456');
  });

  it('a failed write is one warning; the caller goes on, and the events are written once the table is back, in order', async () => {
    const { lines, logger: base } = capture();
    const sink = createAuditSink({ store: createAuditEventStore(database.db, engine), clock: () => T + 200, logger: base });
    const auditor = createAuditor({ logger: base, sink });
    await sql`alter table audit_events rename to audit_events_away`.execute(database.db);
    try {
      expect(() => auditor.record('login.password.failure', { username: 'carol', ip: '10.0.0.3' })).not.toThrow();
      auditor.record('login.password.success', { account_id: 'acc-3', ip: '10.0.0.3' });
      await sink.flush();
    } finally {
      await sql`alter table audit_events_away rename to audit_events`.execute(database.db);
    }
    expect(lines.filter((l) => l.level === 40).map((l) => ({ event: l.event, pending: l.pending, msg: l.msg, username: l.username, account_id: l.account_id, ip: l.ip }))).toEqual([
      { event: 'audit.persist_failed', pending: 2, msg: 'audit events not stored yet: kept until the database is back', username: undefined, account_id: undefined, ip: undefined },
    ]);
    auditor.record('login.password.success', { account_id: 'acc-4', ip: '10.0.0.4' });
    await sink.flush();
    const stored = await database.db.selectFrom('audit_events').select(['username', 'account_id']).where('occurred_at', '=', T + 200).orderBy('id').execute();
    expect(stored).toEqual([
      { username: 'carol', account_id: null },
      { username: null, account_id: 'acc-3' },
      { username: null, account_id: 'acc-4' },
    ]);
    expect(lines.filter((l) => l.event === 'audit.persist_recovered').map((l) => [l.level, l.dropped])).toEqual([[30, 0]]);
  });

  it('10000 waiting events and more are all written (the memory bound only moves events to the spool)', async () => {
    const { lines, logger: base } = capture();
    const sink = createAuditSink({ store: createAuditEventStore(database.db, engine), clock: () => T + 300, logger: base, spool: createAuditSpool({ directory: spoolDirectory() }) });
    const auditor = createAuditor({ logger: base.child({}, { level: 'silent' }), sink });
    // Synchronous: nothing is written before the loop ends, so the queue really holds them all.
    for (let i = 0; i <= 10_000; i++) auditor.record('push.expired', { account_id: `acc-${i}`, push_id: `p${i}` });
    expect(lines.filter((l) => l.level === 40)).toEqual([]);
    await sink.flush();
    const rows = await database.db.selectFrom('audit_events').select((eb) => eb.fn.countAll<number>().as('n')).where('occurred_at', '=', T + 300).executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(10_001);
    const last = await database.db.selectFrom('audit_events').select('account_id').where('occurred_at', '=', T + 300).orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
    expect(last.account_id).toBe('acc-10000');
  });

  it('events of separate requests in one batch window share one insert; flush writes them at once', async () => {
    const { logger: base } = capture();
    const store = createAuditEventStore(database.db, engine);
    const batches: number[] = [];
    const counting = { append: (records: Parameters<typeof store.append>[0]) => (batches.push(records.length), store.append(records)) };
    const sink = createAuditSink({ store: counting, clock: () => T + 400, logger: base });
    const auditor = createAuditor({ logger: base, sink });
    // Each event after an await, as separate requests emit them; the window (a timer) cannot end meanwhile.
    auditor.record('token.issued', { client_id: 'a', grant_type: 'refresh_token' });
    await Promise.resolve();
    auditor.record('token.issued', { client_id: 'b', grant_type: 'refresh_token' });
    await Promise.resolve();
    auditor.record('token.issued', { client_id: 'c', grant_type: 'client_credentials' });
    expect(batches).toEqual([]);
    await sink.flush();
    expect(batches).toEqual([3]);
    const rows = await database.db.selectFrom('audit_events').select('client_id').where('occurred_at', '=', T + 400).orderBy('id').execute();
    expect(rows.map((r) => r.client_id)).toEqual(['a', 'b', 'c']);
    await sink.flush();
    expect(batches).toEqual([3]);
  });
});

describe('audit sink batch windows (a store that answers when told)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A store whose every append waits until `release()`; `batches` lists each append's client ids. */
  function gatedStore() {
    const batches: (string | null)[][] = [];
    const waiting: (() => void)[] = [];
    return {
      batches,
      store: {
        append: (records: { clientId: string | null }[]) => {
          batches.push(records.map((r) => r.clientId));
          return new Promise<void>((resolve) => waiting.push(resolve));
        },
      },
      release: async () => {
        for (const resolve of waiting.splice(0)) resolve();
        await vi.advanceTimersByTimeAsync(0);
      },
    };
  }

  it('what arrives during a write waits for a window of its own; a full batch, or a flush, is written at once', async () => {
    vi.useFakeTimers();
    const { logger: base } = capture();
    const gate = gatedStore();
    const sink = createAuditSink({ store: gate.store as never, clock: () => T, logger: base });
    const auditor = createAuditor({ logger: base, sink });

    auditor.record('token.issued', { client_id: 'a', grant_type: 'refresh_token' });
    await vi.advanceTimersByTimeAsync(99);
    expect(gate.batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(gate.batches).toEqual([['a']]);
    // During that write:
    auditor.record('token.issued', { client_id: 'b', grant_type: 'refresh_token' });
    auditor.record('token.issued', { client_id: 'c', grant_type: 'refresh_token' });
    await gate.release();
    expect(gate.batches).toEqual([['a']]);
    await vi.advanceTimersByTimeAsync(99);
    expect(gate.batches).toEqual([['a']]);
    await vi.advanceTimersByTimeAsync(1);
    expect(gate.batches).toEqual([['a'], ['b', 'c']]);

    // A full batch (200) waiting when a write ends is written at once, the rest after a window.
    for (let i = 0; i < 201; i++) auditor.record('token.issued', { client_id: `x${i}`, grant_type: 'refresh_token' });
    await gate.release();
    expect(gate.batches.map((b) => b.length)).toEqual([1, 2, 200]);
    await gate.release();
    expect(gate.batches.map((b) => b.length)).toEqual([1, 2, 200]);
    await vi.advanceTimersByTimeAsync(100);
    expect(gate.batches.map((b) => b.length)).toEqual([1, 2, 200, 1]);

    // A flush during a write writes what arrives meanwhile without waiting for a window.
    auditor.record('token.issued', { client_id: 'd', grant_type: 'refresh_token' });
    const flushed = sink.flush();
    await gate.release();
    expect(gate.batches.at(-1)).toEqual(['d']);
    await gate.release();
    await flushed;
    expect(gate.batches.map((b) => b.length)).toEqual([1, 2, 200, 1, 1]);
    auditor.record('token.issued', { client_id: 'e', grant_type: 'refresh_token' });
    const again = sink.flush();
    expect(gate.batches.at(-1)).toEqual(['e']);
    auditor.record('token.issued', { client_id: 'f', grant_type: 'refresh_token' });
    await gate.release();
    expect(gate.batches.at(-1)).toEqual(['f']);
    await gate.release();
    await again;
    expect(gate.batches.map((b) => b.length)).toEqual([1, 2, 200, 1, 1, 1, 1]);
  });
});

describe('audit sink during a database outage (a store that fails, then recovers)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A store that refuses every write while `down`, and keeps what it is given otherwise. */
  function flakyStore() {
    const written: string[] = [];
    const state = { down: true, attempts: 0 };
    return {
      written,
      state,
      store: {
        append: async (records: readonly { clientId: string | null }[]) => {
          state.attempts++;
          if (state.down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
          written.push(...records.map((r) => r.clientId ?? ''));
        },
      },
    };
  }

  function droppedTotal(registry: Registry): Promise<number | undefined> {
    return registry.getSingleMetric('gatehouse_audit_events_dropped_total')!.get().then((m) => m.values[0]?.value);
  }

  it('keeps every event of an outage, retries with a growing delay, and writes them all, in order, when the store is back', async () => {
    vi.useFakeTimers();
    const { lines, logger: base } = capture();
    const flaky = flakyStore();
    const metrics = new Registry();
    const sink = createAuditSink({ store: flaky.store as never, clock: () => T, logger: base, metrics, spool: createAuditSpool({ directory: spoolDirectory() }) });
    const auditor = createAuditor({ logger: base.child({}, { level: 'silent' }), sink });
    auditor.record('token.issued', { client_id: 'a', grant_type: 'client_credentials' });
    await vi.advanceTimersByTimeAsync(100);
    expect(flaky.state.attempts).toBe(1);
    auditor.record('token.issued', { client_id: 'b', grant_type: 'client_credentials' });
    // Retries after 1 s, then 2 s, then 4 s: no write in between, even as events arrive.
    await vi.advanceTimersByTimeAsync(999);
    expect(flaky.state.attempts).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(flaky.state.attempts).toBe(2);
    auditor.record('token.issued', { client_id: 'c', grant_type: 'client_credentials' });
    await vi.advanceTimersByTimeAsync(2_000);
    expect(flaky.state.attempts).toBe(3);
    flaky.state.down = false;
    await vi.advanceTimersByTimeAsync(3_999);
    expect(flaky.written).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(flaky.written).toEqual(['a', 'b', 'c']);
    expect(lines.filter((l) => l.event === 'audit.persist_failed').map((l) => [l.level, l.error_code, l.pending])).toEqual([[40, 'ECONNREFUSED', 1]]);
    expect(lines.filter((l) => l.event === 'audit.persist_recovered').map((l) => [l.level, l.dropped])).toEqual([[30, 0]]);
    expect(await droppedTotal(metrics)).toBe(0);
    // Back to batch windows: the next event waits 100 ms, not a retry delay.
    auditor.record('token.issued', { client_id: 'd', grant_type: 'client_credentials' });
    await vi.advanceTimersByTimeAsync(100);
    expect(flaky.written).toEqual(['a', 'b', 'c', 'd']);
  });

  it('beyond the memory bound events wait in the spool; beyond the spool they are dropped, counted and logged once', async () => {
    vi.useFakeTimers();
    const { lines, logger: base } = capture();
    const flaky = flakyStore();
    const metrics = new Registry();
    const directory = spoolDirectory();
    const sink = createAuditSink({ store: flaky.store as never, clock: () => T, logger: base, metrics, memoryLimit: 3, spool: createAuditSpool({ directory, hostname: 'auth-1', maxRecords: 4 }) });
    const auditor = createAuditor({ logger: base.child({}, { level: 'silent' }), sink });
    auditor.record('token.issued', { client_id: 'e1', grant_type: 'client_credentials' });
    await vi.advanceTimersByTimeAsync(100);
    for (const id of ['e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8', 'e9']) auditor.record('token.issued', { client_id: id, grant_type: 'client_credentials' });
    // e1-e3 went to the spool when e4 came, e4-e6 when e7 came (one fitted, two dropped); e7-e9 wait in memory.
    expect(readdirSync(directory)).toEqual([`auth-1-${process.pid}.ndjson`]);
    expect(readFileSync(join(directory, `auth-1-${process.pid}.ndjson`), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { clientId: string }).clientId)).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(await droppedTotal(metrics)).toBe(2);
    expect(lines.filter((l) => l.event === 'audit.events_dropped').map((l) => [l.level, l.dropped, l.audit_event])).toEqual([[40, 2, 'token.issued']]);
    const pending = await metrics.getSingleMetric('gatehouse_audit_events_pending')!.get();
    expect(pending.values[0]?.value).toBe(7);
    flaky.state.down = false;
    await sink.flush();
    expect(flaky.written).toEqual(['e1', 'e2', 'e3', 'e4', 'e7', 'e8', 'e9']);
    expect(readdirSync(directory)).toEqual([]);
    expect(lines.filter((l) => l.event === 'audit.persist_recovered').map((l) => l.dropped)).toEqual([2]);
  });

  it('a flush that cannot write keeps the events in the spool; the next process adopts a spool whose process is gone and writes it', async () => {
    vi.useFakeTimers();
    const { logger: base } = capture();
    const flaky = flakyStore();
    const directory = spoolDirectory();
    const first = createAuditSink({ store: flaky.store as never, clock: () => T, logger: base, spool: createAuditSpool({ directory, hostname: 'auth-1', pid: 4001, isRunning: () => false }) });
    first.record('token.issued', { client_id: 'before-restart', grant_type: 'client_credentials' });
    await first.flush();
    expect(readdirSync(directory)).toEqual(['auth-1-4001.ndjson']);
    // A torn last line (a crash mid-write) is skipped.
    writeFileSync(join(directory, 'auth-1-4001.ndjson'), `${readFileSync(join(directory, 'auth-1-4001.ndjson'), 'utf8')}{"occurredAt":1,"ev`);
    // A spool of a process that still runs is left alone.
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, 'auth-1-4003.ndjson'), '');
    flaky.state.down = false;
    const spool = createAuditSpool({ directory, hostname: 'auth-1', pid: 4002, isRunning: (pid) => pid === 4003 });
    expect(spool.size).toBe(1);
    createAuditSink({ store: flaky.store as never, clock: () => T, logger: base, spool });
    await vi.advanceTimersByTimeAsync(100);
    expect(flaky.written).toEqual(['before-restart']);
    expect(readdirSync(directory).sort()).toEqual(['auth-1-4003.ndjson']);
  });
});

describe('audit sink and a real PostgreSQL that restarts (a relay cut and restored)', () => {
  it('events recorded while PostgreSQL is unreachable are all stored once it is back', async () => {
    const target = await createTestDatabase('postgres');
    const outage = await createPostgresOutage(target.url);
    const database = await openAuthDatabase(outage.url, { onConnectionError: () => undefined, connectTimeoutMs: 1_000 });
    try {
      const { lines, logger: base } = capture();
      const sink = createAuditSink({ store: createAuditEventStore(database.db, 'postgres'), clock: () => T, logger: base, spool: createAuditSpool({ directory: spoolDirectory() }) });
      const auditor = createAuditor({ logger: base.child({}, { level: 'silent' }), sink });
      auditor.record('token.issued', { client_id: 'before', grant_type: 'client_credentials' });
      await sink.flush();
      await outage.down();
      for (const id of ['during-1', 'during-2', 'during-3', 'during-4']) auditor.record('token.issued', { client_id: id, grant_type: 'client_credentials' });
      await sink.flush();
      expect(lines.filter((l) => l.event === 'audit.persist_failed')).toHaveLength(1);
      await outage.up();
      auditor.record('token.issued', { client_id: 'after', grant_type: 'client_credentials' });
      await sink.flush();
      const rows = await database.db.selectFrom('audit_events').select('client_id').orderBy('id').execute();
      expect(rows.map((r) => r.client_id)).toEqual(['before', 'during-1', 'during-2', 'during-3', 'during-4', 'after']);
      expect(lines.filter((l) => l.event === 'audit.events_dropped')).toEqual([]);
    } finally {
      await database.close();
      await outage.close();
      await target.drop();
    }
  });
});
