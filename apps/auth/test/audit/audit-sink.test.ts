/** Every audit() of a logger with a sink is stored, in order, also through child loggers; a failed write is a warning, never an error to the caller. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createAuditEventStore } from '../../src/audit/audit-event-store.ts';
import { createAuditSink, withAuditSink } from '../../src/audit/audit-sink.ts';
import { audit, createLogger } from '../../src/logging/logger.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const T = Date.parse('2026-11-21T08:00:00.000Z');

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
  return { lines, logger };
}

describe.each(TEST_ENGINES)('audit sink on %s', (engine) => {
  const database = useAuthDatabase(engine);

  it('stores what audit() logs, in emission order, with the emission time, through child loggers too', async () => {
    const { lines, logger: base } = capture();
    let now = T;
    const store = createAuditEventStore(database.db, engine);
    const sink = createAuditSink({ store, clock: () => now, logger: base });
    const logger = withAuditSink(base, sink);
    const child = logger.child({ request_id: 'r1' });
    const grandchild = child.child({ step: 'x' });
    audit(logger, 'login.password.failure', { username: 'Alice', ip: '10.0.0.1' });
    now += 5;
    audit(child, 'login.password.success', { account_id: 'acc-1', ip: '10.0.0.1' });
    audit(grandchild, 'login.mfa.success', { account_id: 'acc-1', ip: '10.0.0.1', method: 'push', push_id: 'p1' });
    audit(child, 'token.issued', { client_id: undefined, grant_type: 'client_credentials' });
    audit(logger, 'admin.user.unlocked', { actor_kind: 'operator', actor: 'cli', account_id: 'acc-1', cleared: 3 });
    // The parent logger is untouched: nothing it audits is stored.
    audit(base, 'session.logout', { client_id: 'app-one' });
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
      { id: undefined, occurred_at: T, event: 'login.password.failure', account_id: null, username: 'alice', client_id: null, actor_kind: null, actor: null, ip: '10.0.0.1', fields: '{}' },
      { id: undefined, occurred_at: T + 5, event: 'login.password.success', account_id: 'acc-1', username: null, client_id: null, actor_kind: null, actor: null, ip: '10.0.0.1', fields: '{}' },
      { id: undefined, occurred_at: T + 5, event: 'login.mfa.success', account_id: 'acc-1', username: null, client_id: null, actor_kind: null, actor: null, ip: '10.0.0.1', fields: '{"method":"push","push_id":"p1"}' },
      { id: undefined, occurred_at: T + 5, event: 'token.issued', account_id: null, username: null, client_id: null, actor_kind: null, actor: null, ip: null, fields: '{"grant_type":"client_credentials"}' },
      { id: undefined, occurred_at: T + 5, event: 'admin.user.unlocked', account_id: 'acc-1', username: null, client_id: null, actor_kind: 'operator', actor: 'cli', ip: null, fields: '{"cleared":3}' },
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

  it('a failed write is one warning per event, naming only the event; the caller goes on and later events are stored', async () => {
    const { lines, logger: base } = capture();
    const sink = createAuditSink({ store: createAuditEventStore(database.db, engine), clock: () => T + 200, logger: base });
    const logger = withAuditSink(base, sink);
    await sql`alter table audit_events rename to audit_events_away`.execute(database.db);
    try {
      expect(() => audit(logger, 'login.password.failure', { username: 'carol', ip: '10.0.0.3' })).not.toThrow();
      audit(logger, 'login.password.success', { account_id: 'acc-3', ip: '10.0.0.3' });
      await sink.flush();
    } finally {
      await sql`alter table audit_events_away rename to audit_events`.execute(database.db);
    }
    const warnings = lines.filter((l) => l.event === 'audit.persist_failed');
    expect(warnings.map((l) => ({ level: l.level, audit_event: l.audit_event, msg: l.msg, username: l.username, account_id: l.account_id, ip: l.ip }))).toEqual([
      { level: 40, audit_event: 'login.password.failure', msg: 'audit event not stored', username: undefined, account_id: undefined, ip: undefined },
      { level: 40, audit_event: 'login.password.success', msg: 'audit event not stored', username: undefined, account_id: undefined, ip: undefined },
    ]);
    audit(logger, 'login.password.success', { account_id: 'acc-4', ip: '10.0.0.4' });
    await sink.flush();
    const stored = await database.db.selectFrom('audit_events').select('account_id').where('occurred_at', '=', T + 200).execute();
    expect(stored).toEqual([{ account_id: 'acc-4' }]);
  });

  it('holds at most 10000 waiting events: one more is reported as not stored, the others are all written', async () => {
    const { lines, logger: base } = capture();
    const sink = createAuditSink({ store: createAuditEventStore(database.db, engine), clock: () => T + 300, logger: base });
    const logger = withAuditSink(base.child({}, { level: 'silent' }), sink);
    // Synchronous: nothing is written before the loop ends, so the queue really holds them all.
    for (let i = 0; i <= 10_000; i++) audit(logger, 'push.expired', { account_id: `acc-${i}`, push_id: `p${i}` });
    expect(lines.filter((l) => l.event === 'audit.persist_failed').map((l) => l.audit_event)).toEqual(['push.expired']);
    await sink.flush();
    const rows = await database.db.selectFrom('audit_events').select((eb) => eb.fn.countAll<number>().as('n')).where('occurred_at', '=', T + 300).executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(10_000);
    const last = await database.db.selectFrom('audit_events').select('account_id').where('occurred_at', '=', T + 300).orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
    expect(last.account_id).toBe('acc-9999');
  });

  it('events of separate requests in one batch window share one insert; flush writes them at once', async () => {
    const { logger: base } = capture();
    const store = createAuditEventStore(database.db, engine);
    const batches: number[] = [];
    const counting = { append: (records: Parameters<typeof store.append>[0]) => (batches.push(records.length), store.append(records)) };
    const sink = createAuditSink({ store: counting, clock: () => T + 400, logger: base });
    const logger = withAuditSink(base, sink);
    // Each event after an await, as separate requests emit them; the window (a timer) cannot end meanwhile.
    audit(logger, 'token.issued', { client_id: 'a', grant_type: 'refresh_token' });
    await Promise.resolve();
    audit(logger, 'token.issued', { client_id: 'b', grant_type: 'refresh_token' });
    await Promise.resolve();
    audit(logger, 'token.issued', { client_id: 'c', grant_type: 'client_credentials' });
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
    const logger = withAuditSink(base, sink);

    audit(logger, 'token.issued', { client_id: 'a', grant_type: 'refresh_token' });
    await vi.advanceTimersByTimeAsync(99);
    expect(gate.batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(gate.batches).toEqual([['a']]);
    // During that write:
    audit(logger, 'token.issued', { client_id: 'b', grant_type: 'refresh_token' });
    audit(logger, 'token.issued', { client_id: 'c', grant_type: 'refresh_token' });
    await gate.release();
    expect(gate.batches).toEqual([['a']]);
    await vi.advanceTimersByTimeAsync(99);
    expect(gate.batches).toEqual([['a']]);
    await vi.advanceTimersByTimeAsync(1);
    expect(gate.batches).toEqual([['a'], ['b', 'c']]);

    // A full batch (200) waiting when a write ends is written at once, the rest after a window.
    for (let i = 0; i < 201; i++) audit(logger, 'token.issued', { client_id: `x${i}`, grant_type: 'refresh_token' });
    await gate.release();
    expect(gate.batches.map((b) => b.length)).toEqual([1, 2, 200]);
    await gate.release();
    expect(gate.batches.map((b) => b.length)).toEqual([1, 2, 200]);
    await vi.advanceTimersByTimeAsync(100);
    expect(gate.batches.map((b) => b.length)).toEqual([1, 2, 200, 1]);

    // A flush during a write writes what arrives meanwhile without waiting for a window.
    audit(logger, 'token.issued', { client_id: 'd', grant_type: 'refresh_token' });
    const flushed = sink.flush();
    await gate.release();
    expect(gate.batches.at(-1)).toEqual(['d']);
    await gate.release();
    await flushed;
    expect(gate.batches.map((b) => b.length)).toEqual([1, 2, 200, 1, 1]);
    audit(logger, 'token.issued', { client_id: 'e', grant_type: 'refresh_token' });
    const again = sink.flush();
    expect(gate.batches.at(-1)).toEqual(['e']);
    audit(logger, 'token.issued', { client_id: 'f', grant_type: 'refresh_token' });
    await gate.release();
    expect(gate.batches.at(-1)).toEqual(['f']);
    await gate.release();
    await again;
    expect(gate.batches.map((b) => b.length)).toEqual([1, 2, 200, 1, 1, 1, 1]);
  });
});
