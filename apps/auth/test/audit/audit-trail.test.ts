/** The stored audit trail and its query service on both engines: filters, time range, keyset paging, purge, the indexes. */
import { describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createAuditEventStore, type AuditRecord } from '../../src/audit/audit-event-store.ts';
import { AuditQueryError, createAuditTrail, type AuditQuery } from '../../src/audit/audit-trail.ts';
import { encodeAuditCursor } from '../../src/audit/audit-cursor.ts';
import type { AuthSchema } from '../../src/storage/schema.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const T = Date.parse('2026-11-20T00:00:00.000Z');
const MIN = 60_000;

function record(minute: number, event: string, extra: Partial<AuditRecord> = {}): AuditRecord {
  return { occurredAt: T + minute * MIN, event, accountId: null, username: null, clientId: null, actorKind: null, actor: null, ip: null, fields: {}, ...extra };
}

async function refusal(run: Promise<unknown>): Promise<{ code: string; field: string; message: string }> {
  try {
    await run;
  } catch (error) {
    if (error instanceof AuditQueryError) return { code: error.code, field: error.field, message: error.message };
    throw error;
  }
  throw new Error('query accepted');
}

describe.each(TEST_ENGINES)('audit trail on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const box = createSecretBox(Buffer.alloc(32, 1));
  let aliceId = '';

  const trail = () => createAuditTrail({ events: createAuditEventStore(database.db, engine), accounts: createAccountStore(database.db, box) });
  const names = async (query: AuditQuery) => (await trail().query(query)).items.map((e) => `${e.event}@${(e.occurredAt - T) / MIN}`);

  it('stores events with their columns and fields, newest first, ties in insertion order', async () => {
    const alice = await createAccountStore(database.db, box).create({ username: 'alice', email: 'a@example.com', name: 'Alice', groups: [], passwordHash: 'x' });
    aliceId = alice.id;
    const store = createAuditEventStore(database.db, engine);
    await store.append([
      record(0, 'login.password.failure', { username: 'alice', ip: '10.0.0.1' }),
      record(1, 'login.password.success', { accountId: aliceId, ip: '10.0.0.1' }),
      record(1, 'login.mfa.success', { accountId: aliceId, ip: '10.0.0.1', fields: { method: 'totp' } }),
      record(2, 'token.issued', { clientId: 'app-one', fields: { grant_type: 'authorization_code' } }),
      record(3, 'login.password.failure', { username: 'nobody', ip: '10.0.0.2' }),
      record(4, 'admin.user.disabled', { accountId: aliceId, actorKind: 'operator', actor: 'cli' }),
      record(5, 'login.account_disabled', { accountId: aliceId, ip: '10.0.0.1' }),
      record(6, 'token.issued', { clientId: 'app_two', fields: { grant_type: 'client_credentials' } }),
    ]);
    const { items, next } = await trail().query({});
    expect(next).toBeNull();
    expect(items.map((e) => e.event)).toEqual([
      'token.issued',
      'login.account_disabled',
      'admin.user.disabled',
      'login.password.failure',
      'token.issued',
      'login.mfa.success',
      'login.password.success',
      'login.password.failure',
    ]);
    expect(items[5]).toEqual({
      id: expect.any(Number),
      occurredAt: T + MIN,
      event: 'login.mfa.success',
      accountId: aliceId,
      username: null,
      clientId: null,
      actorKind: null,
      actor: null,
      ip: '10.0.0.1',
      requestId: null,
      fields: { method: 'totp' },
    });
    expect(items[2]).toMatchObject({ event: 'admin.user.disabled', actorKind: 'operator', actor: 'cli' });
  });

  it('filters by user (the account and its typed name), client, exact event and prefix, combined', async () => {
    expect(await names({ username: 'Alice' })).toEqual(['login.account_disabled@5', 'admin.user.disabled@4', 'login.mfa.success@1', 'login.password.success@1', 'login.password.failure@0']);
    expect(await names({ accountId: aliceId })).toEqual(['login.account_disabled@5', 'admin.user.disabled@4', 'login.mfa.success@1', 'login.password.success@1']);
    expect(await names({ username: 'nobody' })).toEqual(['login.password.failure@3']);
    expect(await names({ username: 'carol' })).toEqual([]);
    expect(await names({ clientId: 'app-one' })).toEqual(['token.issued@2']);
    expect(await names({ event: 'token.issued' })).toEqual(['token.issued@6', 'token.issued@2']);
    expect(await names({ event: 'login.' })).toEqual(['login.account_disabled@5', 'login.password.failure@3', 'login.mfa.success@1', 'login.password.success@1', 'login.password.failure@0']);
    expect(await names({ event: 'login.password.' })).toEqual(['login.password.failure@3', 'login.password.success@1', 'login.password.failure@0']);
    // A prefix is literal: `_` is no wildcard, `login.` does not match `loginx`.
    expect(await names({ event: 'login.account_' })).toEqual([]);
    expect(await names({ event: 'login' })).toEqual([]);
    expect(await names({ username: 'alice', event: 'login.' })).toEqual(['login.account_disabled@5', 'login.mfa.success@1', 'login.password.success@1', 'login.password.failure@0']);
    expect(await names({ username: 'alice', accountId: 'someone-else' })).toEqual([]);
  });

  it('keeps a time range: since inclusive, until exclusive', async () => {
    expect(await names({ since: T + MIN, until: T + 4 * MIN })).toEqual(['login.password.failure@3', 'token.issued@2', 'login.mfa.success@1', 'login.password.success@1']);
    expect(await names({ since: T + 6 * MIN })).toEqual(['token.issued@6']);
    expect(await names({ until: T + MIN })).toEqual(['login.password.failure@0']);
  });

  it('pages with a cursor: every event once, across a millisecond tie, then next is null', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    const pages: number[] = [];
    do {
      const page: Awaited<ReturnType<ReturnType<typeof trail>['query']>> = await trail().query({ limit: 3, ...(after ? { after } : {}) });
      pages.push(page.items.length);
      seen.push(...page.items.map((e) => `${e.event}@${(e.occurredAt - T) / MIN}`));
      after = page.next ?? undefined;
    } while (after);
    expect(pages).toEqual([3, 3, 2]);
    expect(seen).toEqual(await names({ limit: 200 }));
    expect(new Set(seen).size).toBe(8);
    // A page boundary between the two events of minute 1 (limit 6 ends on the first of them).
    const first = await trail().query({ limit: 6 });
    expect(first.items.at(-1)!.event).toBe('login.mfa.success');
    expect((await trail().query({ after: first.next! })).items.map((e) => e.event)).toEqual(['login.password.success', 'login.password.failure']);
    // Filters apply on every page.
    const failures = await trail().query({ event: 'login.password.failure', limit: 1 });
    expect((await trail().query({ event: 'login.password.failure', limit: 1, after: failures.next! })).items.map((e) => (e.occurredAt - T) / MIN)).toEqual([0]);
  });

  it('refuses bad input with a stable code and the field, before any query', async () => {
    const q = (query: AuditQuery) => refusal(trail().query(query));
    expect(await q({ after: 'not-a-cursor' })).toEqual({ code: 'invalid_cursor', field: 'after', message: 'after is not a cursor this server issued' });
    expect(await q({ after: Buffer.from('12.x').toString('base64url') })).toMatchObject({ code: 'invalid_cursor' });
    expect(await q({ after: Buffer.from('012.5').toString('base64url') })).toMatchObject({ code: 'invalid_cursor' });
    expect(await q({ after: `${encodeAuditCursor({ occurredAt: T, id: 5 })}=` })).toMatchObject({ code: 'invalid_cursor' });
    expect(await q({ limit: 0 })).toEqual({ code: 'invalid_limit', field: 'limit', message: 'limit must be a whole number from 1 to 200' });
    expect(await q({ limit: 201 })).toMatchObject({ code: 'invalid_limit' });
    expect(await q({ limit: 2.5 })).toMatchObject({ code: 'invalid_limit' });
    expect(await q({ event: 'Login.' })).toEqual({ code: 'invalid_event', field: 'event', message: 'event must be an event name (login.password.failure) or a prefix ending in "." (login.)' });
    expect(await q({ event: 'login..' })).toMatchObject({ code: 'invalid_event' });
    expect(await q({ event: "x' or 1=1" })).toMatchObject({ code: 'invalid_event' });
    expect(await q({ since: T, until: T })).toEqual({ code: 'invalid_time', field: 'until', message: 'until must be later than since' });
    expect(await q({ since: -1 })).toMatchObject({ code: 'invalid_time', field: 'since' });
    expect(await q({ username: ' ' })).toEqual({ code: 'invalid_filter', field: 'user', message: 'user must be 1 to 256 characters' });
    expect(await q({ clientId: '' })).toMatchObject({ code: 'invalid_filter', field: 'client' });
  });

  it('purges events older than a time and says how many', async () => {
    const store = createAuditEventStore(database.db, engine);
    expect(await store.purgeBefore(T + 2 * MIN)).toBe(3);
    expect(await names({})).toEqual(['token.issued@6', 'login.account_disabled@5', 'admin.user.disabled@4', 'login.password.failure@3', 'token.issued@2']);
    expect(await store.purgeBefore(T + 2 * MIN)).toBe(0);
  });

  it('answers each filter from an index ending in (occurred_at, id)', async () => {
    const plans = await Promise.all([
      plan(database.db, engine, sql`select * from audit_events order by occurred_at desc, id desc limit 51`),
      plan(database.db, engine, sql`select * from audit_events where client_id = 'app-one' order by occurred_at desc, id desc limit 51`),
      plan(database.db, engine, sql`select * from audit_events where event = 'token.issued' order by occurred_at desc, id desc limit 51`),
      plan(database.db, engine, sql`select * from audit_events where (account_id = 'a' or username = 'alice') order by occurred_at desc, id desc limit 51`),
      plan(database.db, engine, sql`delete from audit_events where occurred_at < 5`),
    ]);
    expect(plans[0]).toContain('audit_events_time');
    expect(plans[1]).toContain('audit_events_client_time');
    expect(plans[2]).toContain('audit_events_event_time');
    expect(plans[3]).toContain('audit_events_account_time');
    expect(plans[3]).toContain('audit_events_username_time');
    expect(plans[4]).toContain('audit_events_time');
  });

  it('indexes an account, username or client only on the events that name one', async () => {
    const definitions =
      engine === 'sqlite'
        ? (await sql<{ name: string; sql: string }>`select name, sql from sqlite_master where type = 'index' and tbl_name = 'audit_events'`.execute(database.db)).rows
        : (await sql<{ name: string; sql: string }>`select indexname as name, indexdef as sql from pg_indexes where tablename = 'audit_events'`.execute(database.db)).rows;
    const where = (name: string) => /where\s*\(?\s*"?(\w+)"?\s+is\s+not\s+null\)?\s*$/i.exec(definitions.find((d) => d.name === name)?.sql ?? '')?.[1];
    expect(where('audit_events_account_time')).toBe('account_id');
    expect(where('audit_events_username_time')).toBe('username');
    expect(where('audit_events_client_time')).toBe('client_id');
    expect(where('audit_events_time')).toBeUndefined();
    expect(where('audit_events_event_time')).toBeUndefined();
  });
});

/** The query plan as text; PostgreSQL is told to avoid sequential scans (the test table is tiny). */
async function plan(db: Kysely<AuthSchema>, engine: string, query: ReturnType<typeof sql>): Promise<string> {
  if (engine === 'sqlite') {
    const rows = await sql<{ detail: string }>`explain query plan ${query}`.execute(db);
    return rows.rows.map((r) => r.detail).join('\n');
  }
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const rows = await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(trx);
    return rows.rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

describe.each(TEST_ENGINES)('audit event store batches on %s', (engine) => {
  const database = useAuthDatabase(engine);

  it('stores awkward text exactly, and a full batch in array order', async () => {
    const store = createAuditEventStore(database.db, engine);
    const awkward = `quote " backslash \\ newline \n tab \t unicode é 🔑 nul-free, sql ' ; --`;
    const batch: AuditRecord[] = [
      record(0, 'login.password.failure', { username: awkward, ip: '::1', actor: '', fields: { reason: awkward, attempts: 3, locked: false, ratio: 0.5 } }),
      ...Array.from({ length: 199 }, (_, i) => record(1, `token.issued`, { clientId: `client-${i}`, fields: { n: i } })),
    ];
    await store.append(batch);
    const rows = await database.db.selectFrom('audit_events').selectAll().orderBy('id').execute();
    expect(rows).toHaveLength(200);
    expect(rows[0]).toMatchObject({ occurred_at: expect.anything(), event: 'login.password.failure', username: awkward, ip: '::1', actor: '', account_id: null, client_id: null, actor_kind: null });
    expect(Number(rows[0]!.occurred_at)).toBe(T);
    expect(JSON.parse(rows[0]!.fields)).toEqual({ reason: awkward, attempts: 3, locked: false, ratio: 0.5 });
    expect(rows.slice(1).map((r) => r.client_id)).toEqual(Array.from({ length: 199 }, (_, i) => `client-${i}`));
    expect(rows.slice(1).map((r) => JSON.parse(r.fields).n)).toEqual(Array.from({ length: 199 }, (_, i) => i));
  });
});
