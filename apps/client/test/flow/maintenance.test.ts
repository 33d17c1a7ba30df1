/**
 * Expired pending logins and sessions are purged by the timer main.ts starts
 * (runOnTimer(app.maintenance)), with no request: the app here never listens.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@gatehouse/db/testing';
import { runOnTimer } from '@gatehouse/runtime';
import type { Database } from '@gatehouse/db';
import { createApp, type ClientApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openClientDatabase } from '../../src/storage/open-client-database.ts';
import type { ClientSchema } from '../../src/storage/schema.ts';

describe('the client maintenance timer, with no request', () => {
  let testDatabase: TestDatabase;
  let database: Database<ClientSchema>;
  let app: ClientApp;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    testDatabase = await createTestDatabase('sqlite');
    const config = loadConfig({ CLIENT_DATABASE_URL: testDatabase.url, CLIENT_DATA_DIR: mkdtempSync(join(tmpdir(), 'gh-client-maintenance-')) });
    database = await openClientDatabase(config.databaseUrl);
    app = createApp(config, { database, clock: Date.now, fetch: () => Promise.reject(new Error('no network')), logger: createLogger({ level: 'silent', name: config.clientId }) });
  });
  afterAll(async () => {
    vi.useRealTimers();
    await database.close();
    await testDatabase.drop();
  });

  it('purges an expired pending login on a timer tick, and not after stop()', async () => {
    const { logins } = app.stores;
    await logins.save({ state: 's1', browser: 'b', nonce: 'n', codeVerifier: 'v', returnTo: '/', silent: false }, 30);
    const timer = runOnTimer(app.maintenance);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(await logins.count()).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.waitFor(async () => expect(await logins.count()).toBe(0));

    await timer.stop();
    await logins.save({ state: 's2', browser: 'b', nonce: 'n', codeVerifier: 'v', returnTo: '/', silent: false }, 30);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(await logins.count()).toBe(1);
  });
});
