import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Database } from '@gatehouse/db';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';
import type { AuthSchema } from '../../src/storage/schema.ts';

// Migration 017: the uid and user_code indexes hold only the rows that have one; the lookups by
// uid (oidc/adapter.ts: findByUid, and a refresh token's session joined by its session_uid) must
// still go through the index, never scan the table.
const BY_UID = "select payload from oidc_payloads where model = 'Session' and uid = 'u1'";
const SESSION_JOIN =
  "select r.payload as r_payload, s.payload as s_payload from oidc_payloads r left join oidc_payloads s on s.model = 'Session' and s.uid = ";
const sessionJoin = (_engine: 'sqlite' | 'postgres') => `${SESSION_JOIN}r.session_uid where r.model = 'RefreshToken' and r.id = 'r1'`;

describe.each(TEST_ENGINES)('oidc_payloads indexes on %s', (engine) => {
  let target: TestDatabase;
  let database: Database<AuthSchema>;
  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = await openAuthDatabase(target.url);
  });
  afterAll(async () => {
    await database.close();
    await target.drop();
  });

  /** The plan of `query`, one line per step. On PostgreSQL table scans are priced out, so an index that can serve shows. */
  async function plan(query: string): Promise<string> {
    if (engine === 'sqlite') {
      const { rows } = await sql.raw<{ detail: string }>(`explain query plan ${query}`).execute(database.db);
      return rows.map((r) => r.detail).join('\n');
    }
    return database.db.connection().execute(async (connection) => {
      await sql`set enable_seqscan = off`.execute(connection);
      try {
        const { rows } = await sql.raw<{ 'QUERY PLAN': string }>(`explain ${query}`).execute(connection);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await sql`reset enable_seqscan`.execute(connection);
      }
    });
  }

  it('indexes only the rows with a uid or a user code', async () => {
    const definitions =
      engine === 'sqlite'
        ? (await sql<{ sql: string }>`select sql from sqlite_master where name in ('oidc_payloads_uid', 'oidc_payloads_user_code') order by name`.execute(database.db)).rows.map((r) => r.sql)
        : (await sql<{ sql: string }>`select indexdef as sql from pg_indexes where indexname in ('oidc_payloads_uid', 'oidc_payloads_user_code') order by indexname`.execute(database.db)).rows.map((r) => r.sql);
    expect(definitions).toHaveLength(2);
    expect(definitions[0]).toMatch(/\(\s*"?uid"?\s*\)\s+where\s+\(?"?uid"? is not null\)?$/i);
    expect(definitions[1]).toMatch(/\(\s*"?user_code"?\s*\)\s+where\s+\(?"?user_code"? is not null\)?$/i);
  });

  it('a lookup by uid, and the session joined to a refresh token by its sessionUid, use the uid index', async () => {
    // A search on the index (not a scan of it): SQLite "SEARCH … USING INDEX … (uid=?)", PostgreSQL an index condition on uid.
    const searched = engine === 'sqlite' ? /SEARCH \w+ USING INDEX oidc_payloads_uid \(uid=\?\)/ : /Index Scan (using|on) oidc_payloads_uid[^\n]*\n\s+Index Cond: \(uid = /;
    expect(await plan(BY_UID)).toMatch(searched);
    expect(await plan(sessionJoin(engine))).toMatch(searched);
  });
});

// Migration 025 (PostgreSQL only; SQLite updates a row in place in the table's b-tree).
describe('oidc_payloads pages on postgres', () => {
  let target: TestDatabase;
  let database: Database<AuthSchema>;
  beforeAll(async () => {
    target = await createTestDatabase('postgres');
    database = await openAuthDatabase(target.url);
  });
  afterAll(async () => {
    await database.close();
    await target.drop();
  });

  it('consuming a stored refresh token writes no index entry (a heap-only update)', async () => {
    // Pages are filled to half, so each consumption finds room on its row's page.
    const rows = 24;
    const hot = await database.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows; i++) {
        await sql`insert into oidc_payloads (model, id, payload, grant_id, expires_at) values ('RefreshToken', ${`hot-${i}`}, ${'x'.repeat(1100)}, ${`grant-${i % 4}`}, ${i})`.execute(trx);
      }
      for (let i = 0; i < rows; i++) await sql`update oidc_payloads set consumed_at = ${i} where model = 'RefreshToken' and id = ${`hot-${i}`}`.execute(trx);
      const { rows: stats } = await sql<{ updated: number; hot: number }>`select n_tup_upd as updated, n_tup_hot_upd as hot from pg_stat_xact_user_tables where relname = 'oidc_payloads'`.execute(trx);
      await sql`delete from oidc_payloads where id like 'hot-%'`.execute(trx);
      return stats[0];
    });
    expect(hot).toEqual({ updated: rows, hot: rows });
  });

});
