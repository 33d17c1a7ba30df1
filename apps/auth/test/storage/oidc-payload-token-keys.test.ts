/**
 * Migration 036: every stored model names its account and session in columns (account_id,
 * session_uid), which the refresh's joined read uses; rows stored before the migration get them
 * from their payload, and a payload that names neither leaves both null.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type Database } from '@gatehouse/db';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { authMigrations } from '../../src/storage/migrations.ts';

const before036 = Object.fromEntries(Object.entries(authMigrations).filter(([name]) => name < '036_'));

describe.each(TEST_ENGINES)('oidc_payloads token keys on %s', (engine) => {
  let target: TestDatabase | undefined;
  let database: Database | undefined;
  afterEach(async () => {
    await database?.close();
    await target?.drop();
  });

  it('fills account_id and session_uid of the rows stored before from their payload', async () => {
    target = await createTestDatabase(engine);
    database = openDatabase(target.url);
    const db = database.db;
    expect(await migrateToLatest(db, 'auth', before036)).not.toContain('036_oidc_payloads_token_keys');
    const row = (model: string, id: string, payload: object) => ({ model, id, payload: JSON.stringify(payload), grant_id: null, user_code: null, uid: null, expires_at: null, consumed_at: null });
    await db
      .insertInto('oidc_payloads' as never)
      .values([
        row('RefreshToken', 'r1', { accountId: 'acc-1', sessionUid: 'sess-1', grantId: 'g1' }),
        row('Session', 's1', { uid: 'sess-1', accountId: 'acc-1' }),
        row('Client', 'c1', { client_id: 'c1' }),
      ] as never)
      .execute();
    expect(await migrateToLatest(db, 'auth', authMigrations)).toContain('036_oidc_payloads_token_keys');
    const rows = await db
      .selectFrom('oidc_payloads' as never)
      .select(['id', 'account_id', 'session_uid'] as never)
      .orderBy('id' as never)
      .execute();
    expect(rows).toEqual([
      { id: 'c1', account_id: null, session_uid: null },
      { id: 'r1', account_id: 'acc-1', session_uid: 'sess-1' },
      { id: 's1', account_id: 'acc-1', session_uid: null },
    ]);
  });
});
