/**
 * Scheduled key rotation and purges run on the timer main.ts starts (runOnTimer(app.maintenance)),
 * with no request at all: the app here never listens. Fake timers move the clock and fire the
 * timer; nothing sleeps.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@gatehouse/db/testing';
import { runOnTimer } from '@gatehouse/runtime';
import type { Database } from '@gatehouse/db';
import { createApp, KEY_CHECK_INTERVAL_MS, type AuthApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';
import type { AuthSchema } from '../../src/storage/schema.ts';

const SECOND = 1000;
const DAY = 86_400 * SECOND;
const PREPUBLISH = 1800 * SECOND;

describe('the maintenance timer, with no request', () => {
  let testDatabase: TestDatabase;
  let database: Database<AuthSchema>;
  let app: AuthApp;
  let T0: number;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    T0 = Date.now();
    testDatabase = await createTestDatabase('sqlite');
    const config = loadConfig({
      AUTH_DATABASE_URL: testDatabase.url,
      AUTH_DATA_DIR: mkdtempSync(join(tmpdir(), 'gh-maintenance-')),
      AUTH_DEV_SEED: 'false',
      AUTH_KEY_ROTATION_INTERVAL: '86400',
      AUTH_KEY_PREPUBLISH: '1800',
      AUTH_AUDIT_RETENTION_DAYS: '1',
    });
    database = await openAuthDatabase(config.databaseUrl);
    app = await createApp(config, { database, clock: Date.now, logger: createLogger({ level: 'silent' }) });
  });
  afterAll(async () => {
    vi.useRealTimers();
    await database.close();
    await testDatabase.drop();
  });

  const keys = async () => (await app.services.keys.list()).map((k) => ({ activatesAt: k.activatesAt, retiredAt: k.retiredAt }));

  it('publishes the successor, switches to it and purges old audit events, timer ticks only', async () => {
    const timer = runOnTimer(app.maintenance);
    expect(await keys()).toEqual([{ activatesAt: null, retiredAt: null }]);

    // Just before the successor is due: a tick changes nothing.
    vi.setSystemTime(T0 + DAY - PREPUBLISH - SECOND);
    await vi.advanceTimersByTimeAsync(KEY_CHECK_INTERVAL_MS - SECOND);
    await vi.waitFor(async () => expect(await keys()).toHaveLength(1));

    // The next tick publishes it, to sign AUTH_KEY_PREPUBLISH later.
    await vi.advanceTimersByTimeAsync(KEY_CHECK_INTERVAL_MS);
    await vi.waitFor(async () => expect(await keys()).toHaveLength(2));
    const [pending] = await app.services.keys.list();
    expect(pending!.createdAt).toBeGreaterThanOrEqual(T0 + DAY - PREPUBLISH);
    expect(pending!.activatesAt! - pending!.createdAt).toBe(PREPUBLISH);
    expect((await keys())[1]).toEqual({ activatesAt: null, retiredAt: null });

    // Past activation, a tick retires the old key.
    vi.setSystemTime(pending!.activatesAt!);
    await vi.advanceTimersByTimeAsync(KEY_CHECK_INTERVAL_MS);
    await vi.waitFor(async () => expect((await keys())[1]!.retiredAt).not.toBeNull());

    // Audit events older than AUTH_AUDIT_RETENTION_DAYS go at the next purge (every minute).
    await app.services.auditEvents.append([
      { occurredAt: Date.now() - 2 * DAY, event: 'session.logout', accountId: null, username: null, clientId: 'x', actorKind: null, actor: null, ip: null, fields: {} },
    ]);
    const stored = async () => Number((await database.db.selectFrom('audit_events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    expect(await stored()).toBeGreaterThanOrEqual(1);
    await vi.advanceTimersByTimeAsync(60 * SECOND);
    await vi.waitFor(async () => expect(await stored()).toBe(0));

    // Stopped (shutdown): no more runs, however much time passes.
    await timer.stop();
    vi.setSystemTime(T0 + 3 * DAY);
    await vi.advanceTimersByTimeAsync(10 * KEY_CHECK_INTERVAL_MS);
    expect(await keys()).toHaveLength(2);
  });
});
