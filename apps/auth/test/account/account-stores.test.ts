/**
 * The account page's stores on SQLite and PostgreSQL: session browser and last use
 * (session-meta-store.ts) and one-time password-reset tokens (password-reset-store.ts).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createPasswordResetStore } from '../../src/accounts/password-reset-store.ts';
import { createSessionMetaStore } from '../../src/sessions/session-meta-store.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const HOUR = 3_600_000;

describe.each(TEST_ENGINES)('account stores on %s', (engine) => {
  const database = useAuthDatabase(engine);

  it('session meta: the first touch creates, later ones move the last use, and rows of gone sessions are purged', async () => {
    const clock = { now: 1_000_000 };
    const store = createSessionMetaStore(database.db, () => clock.now);
    await store.touch({ sessionUid: 'uid-a', accountId: 'acc', browser: 'Chrome on Linux', ip: '192.0.2.1' });
    clock.now += 5_000;
    await store.touch({ sessionUid: 'uid-a', accountId: 'acc', browser: 'Firefox on Linux', ip: '192.0.2.2' });
    await store.touch({ sessionUid: 'uid-b', accountId: 'acc', browser: 'Safari on iOS', ip: '192.0.2.3' });
    expect((await store.find(['uid-a', 'uid-b', 'uid-unknown'])).sort((x, y) => x.sessionUid.localeCompare(y.sessionUid))).toEqual([
      { sessionUid: 'uid-a', accountId: 'acc', browser: 'Firefox on Linux', ip: '192.0.2.2', createdAt: 1_000_000, lastUsedAt: 1_005_000 },
      { sessionUid: 'uid-b', accountId: 'acc', browser: 'Safari on iOS', ip: '192.0.2.3', createdAt: 1_005_000, lastUsedAt: 1_005_000 },
    ]);
    expect(await store.find([])).toEqual([]);

    // uid-a's session is stored; uid-b's is gone.
    await database.db.insertInto('oidc_payloads').values({ model: 'Session', id: 'sid-a', payload: '{}', grant_id: null, user_code: null, uid: 'uid-a', expires_at: null, consumed_at: null }).execute();
    expect(await store.purgeOrphans()).toBe(1);
    expect((await store.find(['uid-a', 'uid-b'])).map((m) => m.sessionUid)).toEqual(['uid-a']);
    await store.remove(['uid-a']);
    expect(await store.find(['uid-a'])).toEqual([]);
  });

  it('password resets: hashed, one live token per account, single use, until the expiry', async () => {
    const clock = { now: 5_000_000 };
    const store = createPasswordResetStore(database.db, () => clock.now);
    const first = await store.issue('acc-1', HOUR);
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.expiresAt).toBe(clock.now + HOUR);
    const rows = await database.db.selectFrom('password_resets').selectAll().where('account_id', '=', 'acc-1').execute();
    expect(rows.map((r) => r.token_hash)).toEqual([createHash('sha256').update(first.token).digest('hex')]);

    const second = await store.issue('acc-1', HOUR);
    expect(await store.peek(first.token)).toBeUndefined();
    expect(await store.peek(second.token)).toBe('acc-1');
    expect(await store.consume(second.token)).toBe('acc-1');
    expect(await store.consume(second.token)).toBeUndefined();
    expect(await store.peek(second.token)).toBeUndefined();

    const third = await store.issue('acc-2', HOUR);
    clock.now += HOUR;
    expect(await store.peek(third.token)).toBeUndefined();
    expect(await store.consume(third.token)).toBeUndefined();
    for (const bad of ['', 'short', 'A'.repeat(43), `${third.token}x`]) expect(await store.peek(bad)).toBeUndefined();
    expect(await store.purgeExpired()).toBe(2);
  });
});
