/**
 * What the user-session store says about the sessions it ends and the ones that expired, for
 * back-channel logout (sessions/user-sessions.ts), on SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createUserSessionStore } from '../../src/sessions/user-sessions.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

describe.each(TEST_ENGINES)('user sessions for back-channel logout on %s', (engine) => {
  const database = useAuthDatabase(engine);

  const session = (id: string, accountId: string, authorizations: Record<string, { sid?: string; grantId?: string }>, expiresAt: number) =>
    database.db
      .insertInto('oidc_payloads')
      .values({ model: 'Session', id, payload: JSON.stringify({ uid: `uid-${id}`, accountId, authorizations }), grant_id: null, user_code: null, uid: `uid-${id}`, expires_at: expiresAt, consumed_at: null })
      .execute();

  it('names each ended session\'s account and clients with their sid; lists expired sessions without deleting them', async () => {
    const clock = { now: 10_000_000 };
    const store = createUserSessionStore({ db: database.db, clock: () => clock.now, sessionTtl: 3600, onGrantRevoked: async () => undefined });
    await session('s-live', 'acc-1', { 'app-one': { sid: 'sid-1' }, 'app-two': { sid: 'sid-2' } }, clock.now + 60_000);
    await session('s-old', 'acc-2', { 'app-one': { sid: 'sid-3' }, 'app-two': {} }, clock.now - 1);
    await session('s-empty', 'acc-3', {}, clock.now - 1);

    const expired = await store.expiredSessions(100);
    expect(expired.sort((a, b) => a.accountId.localeCompare(b.accountId))).toEqual([
      { accountId: 'acc-2', clients: [{ clientId: 'app-one', sid: 'sid-3' }, { clientId: 'app-two', sid: undefined }] },
      { accountId: 'acc-3', clients: [] },
    ]);
    expect(await store.expiredSessions(1)).toHaveLength(1);
    expect(await database.db.selectFrom('oidc_payloads').select('id').where('model', '=', 'Session').execute()).toHaveLength(3);

    const ended = await store.endAll('acc-1');
    expect(ended).toEqual({ sessions: 1, grants: 0, sessionUids: ['uid-s-live'], ended: [{ accountId: 'acc-1', clients: [{ clientId: 'app-one', sid: 'sid-1' }, { clientId: 'app-two', sid: 'sid-2' }] }] });
  });
});
