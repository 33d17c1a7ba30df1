import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from '@gatehouse/db/testing';
import type { Database } from '@gatehouse/db';
import { openClientDatabase } from '../../src/storage/open-client-database.ts';
import type { ClientSchema } from '../../src/storage/schema.ts';
import { createSessionStore, hashKey } from '../../src/sessions/session-store.ts';
import { createLoginStore, type PendingLogin } from '../../src/sessions/login-store.ts';

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
});
