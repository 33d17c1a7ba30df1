import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from '@gatehouse/db/testing';
import type { Database } from '@gatehouse/db';
import { openClientDatabase } from '../../src/storage/open-client-database.ts';
import type { ClientSchema } from '../../src/storage/schema.ts';
import { createSessionStore, hashKey } from '../../src/sessions/session-store.ts';
import { createLoginStore, type PendingLogin } from '../../src/sessions/login-store.ts';
import { createLogoutTokenStore } from '../../src/sessions/logout-token-store.ts';

describe.each(TEST_ENGINES)('client storage on %s', (engine) => {
  let target: TestDatabase;
  let database: Database<ClientSchema>;
  let now = 1_700_000_000_000;
  const clock = () => now;

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = await openClientDatabase(target.url);
  });
  afterAll(async () => {
    await database?.close();
    await target?.drop();
  });

  it('migrates idempotently', async () => {
    const again = await openClientDatabase(target.url);
    await again.close();
  });

  describe('session store', () => {
    it('stores the data under the hash of the key, scoped to the client id', async () => {
      const sessions = createSessionStore(database.db, 'app-one', clock);
      await sessions.set('key-1', { user: { sub: 'u1' } }, 60_000);
      expect(await sessions.get('key-1')).toEqual({ user: { sub: 'u1' } });
      const row = await database.db.selectFrom('client_sessions').selectAll().where('id', '=', hashKey('key-1')).executeTakeFirstOrThrow();
      expect(row.id).not.toContain('key-1');
      expect(Number(row.expires_at)).toBe(now + 60_000);
      expect(await createSessionStore(database.db, 'app-two', clock).get('key-1')).toBeUndefined();
    });

    it('overwrites on set, and never outlives the absolute expiresAt', async () => {
      const sessions = createSessionStore(database.db, 'app-one', clock);
      await sessions.set('key-2', { n: 1 }, 60_000);
      await sessions.set('key-2', { n: 2, expiresAt: now + 5_000 }, 60_000);
      expect(await sessions.get('key-2')).toEqual({ n: 2, expiresAt: now + 5_000 });
      now += 5_000;
      expect(await sessions.get('key-2')).toBeUndefined();
    });

    it('ends sessions by sid (with sub when given) or by sub, only of its own client', async () => {
      const one = createSessionStore(database.db, 'app-one', clock);
      const two = createSessionStore(database.db, 'app-two', clock);
      await one.set('bc-1', { user: { sub: 'alice' }, sid: 'sso-1' }, 60_000);
      await one.set('bc-2', { user: { sub: 'alice' }, sid: 'sso-2' }, 60_000);
      await one.set('bc-3', { user: { sub: 'bob' }, sid: 'sso-3' }, 60_000);
      await two.set('bc-4', { user: { sub: 'alice' }, sid: 'sso-1' }, 60_000);
      expect(await one.endBySid('sso-1', 'bob')).toBe(0);
      expect(await one.endBySid('sso-1', 'alice')).toBe(1);
      expect(await one.get('bc-1')).toBeUndefined();
      expect(await two.get('bc-4')).toEqual({ user: { sub: 'alice' }, sid: 'sso-1' });
      expect(await one.endBySid('sso-3', undefined)).toBe(1);
      await one.set('bc-5', { user: { sub: 'alice' } }, 60_000);
      expect(await one.endBySub('alice')).toBe(2);
      expect(await one.get('bc-2')).toBeUndefined();
      expect(await one.get('bc-5')).toBeUndefined();
      expect(await two.get('bc-4')).toBeDefined();
    });

    it('destroys and purges', async () => {
      const sessions = createSessionStore(database.db, 'app-one', clock);
      await sessions.set('key-3', { a: 1 }, 1_000);
      await sessions.set('key-4', { a: 1 }, 100_000);
      await sessions.destroy('key-4');
      expect(await sessions.get('key-4')).toBeUndefined();
      now += 2_000;
      expect(await sessions.purgeExpired()).toBeGreaterThanOrEqual(1);
      expect(await database.db.selectFrom('client_sessions').select('id').where('id', '=', hashKey('key-3')).executeTakeFirst()).toBeUndefined();
    });
  });

  describe('login store', () => {
    const login = (state: string): PendingLogin => ({ state, browser: 'b', nonce: 'n', codeVerifier: 'v', returnTo: '/', silent: false });

    it('gives a pending login back once', async () => {
      const logins = createLoginStore(database.db, 'app-one', clock);
      await logins.save({ ...login('s1'), silent: true }, 600);
      expect(await createLoginStore(database.db, 'app-two', clock).take('s1')).toBeUndefined();
      expect(await logins.take('s1')).toEqual({ ...login('s1'), silent: true });
      expect(await logins.take('s1')).toBeUndefined();
    });

    it('expires pending logins', async () => {
      const logins = createLoginStore(database.db, 'app-one', clock);
      await logins.save(login('s2'), 600);
      await logins.save(login('s3'), 600);
      now += 600_000;
      expect(await logins.take('s2')).toBeUndefined();
      expect(await logins.purgeExpired()).toBe(1);
      expect(await logins.count()).toBe(0);
    });
  });

  describe('logout token store', () => {
    it('takes a jti once per client, in one statement, and forgets it once expired', async () => {
      const one = createLogoutTokenStore(database.db, 'app-one', clock);
      const two = createLogoutTokenStore(database.db, 'app-two', clock);
      expect(await one.remember('jti-1', now + 1_000)).toBe(true);
      expect(await one.remember('jti-1', now + 1_000)).toBe(false);
      expect(await two.remember('jti-1', now + 1_000)).toBe(true);
      const racing = await Promise.all([one.remember('jti-2', now + 1_000), one.remember('jti-2', now + 1_000)]);
      expect(racing.filter(Boolean).length).toBe(1);
      now += 1_000;
      expect(await one.purgeExpired()).toBeGreaterThanOrEqual(3);
      expect(await one.remember('jti-1', now + 1_000)).toBe(true);
    });
  });
});
