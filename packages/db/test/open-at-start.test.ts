import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { databaseTarget, DatabaseUnreachableError, openAppDatabase, openAtStart, openDatabase, type FailedAttempt } from '../src/index.ts';
import { TEST_POSTGRES_URL } from '../src/testing.ts';

const refused = () => Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });

/** A clock that only moves when the code under test sleeps. */
function fakeTime() {
  let now = 1_000_000;
  const sleeps: number[] = [];
  return { clock: () => now, sleep: async (ms: number) => void (sleeps.push(ms), (now += ms)), sleeps };
}

describe('openAtStart', () => {
  it('reports each failed attempt in one line of facts, backs off, and succeeds when the database comes', async () => {
    const time = fakeTime();
    const attempts: FailedAttempt[] = [];
    let calls = 0;
    const value = await openAtStart(
      async () => {
        calls += 1;
        if (calls < 4) throw refused();
        return 'open';
      },
      { url: 'postgres://gatehouse:pw@10.0.0.5:5432/auth', timeoutMs: 30_000, onRetry: (a) => attempts.push(a), ...time },
    );
    expect(value).toBe('open');
    expect(time.sleeps).toEqual([500, 1000, 2000]);
    expect(attempts).toEqual([
      { target: '10.0.0.5:5432', reason: 'connection refused', retryInMs: 500, attempt: 1 },
      { target: '10.0.0.5:5432', reason: 'connection refused', retryInMs: 1000, attempt: 2 },
      { target: '10.0.0.5:5432', reason: 'connection refused', retryInMs: 2000, attempt: 3 },
    ]);
  });

  it('gives a logger the same warn line for every retried attempt, naming the timeout setting', async () => {
    const time = fakeTime();
    const lines: Array<[Record<string, unknown>, string]> = [];
    let calls = 0;
    await openAtStart(
      async () => {
        calls += 1;
        if (calls < 2) throw refused();
        return 'open';
      },
      { url: 'postgres://gatehouse:pw@10.0.0.5:5432/auth', timeoutMs: 30_000, setting: 'API_DATABASE_CONNECT_TIMEOUT', warn: (f, m) => lines.push([f, m]), ...time },
    );
    expect(lines).toEqual([
      [
        { event: 'database.unreachable_at_start', target: '10.0.0.5:5432', reason: 'connection refused', attempt: 1, retry_in_ms: 500 },
        'cannot reach the database at 10.0.0.5:5432 (connection refused); retrying in 500 ms (API_DATABASE_CONNECT_TIMEOUT)',
      ],
    ]);
  });

  it('gives up at the timeout with one line: host, port, reason, attempts (never the password)', async () => {
    const time = fakeTime();
    const error = await openAtStart(() => Promise.reject(refused()), { url: 'postgres://gatehouse:pw@10.0.0.5/auth', timeoutMs: 5_000, setting: 'AUTH_DATABASE_CONNECT_TIMEOUT', onRetry: () => {}, ...time }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseUnreachableError);
    expect((error as Error).message).toBe('cannot open the database at 10.0.0.5:5432: connection refused (tried 5 times in 5 s; AUTH_DATABASE_CONNECT_TIMEOUT)');
    // 500 + 1000 + 2000, then what is left of the 5 s.
    expect(time.sleeps).toEqual([500, 1000, 2000, 1500]);
  });

  it('with a timeout of 0, tries once', async () => {
    const time = fakeTime();
    await expect(openAtStart(() => Promise.reject(refused()), { url: 'postgres://h:6543/x', timeoutMs: 0, onRetry: () => {}, ...time })).rejects.toThrow(
      new DatabaseUnreachableError('cannot open the database at h:6543: connection refused (tried once)'),
    );
    expect(time.sleeps).toEqual([]);
  });

  it('waits out a refused password (SQLSTATE 28P01), and throws anything else at once', async () => {
    const time = fakeTime();
    const password = Object.assign(new Error('password authentication failed for user "gatehouse"'), { code: '28P01' });
    await expect(openAtStart(() => Promise.reject(password), { url: 'postgres://db:5432/x', timeoutMs: 1_000, onRetry: () => {}, ...time })).rejects.toThrow(
      'cannot open the database at db:5432: password authentication failed for user "gatehouse" (tried 3 times in 1 s)',
    );
    const bug = new TypeError('not a database problem');
    await expect(openAtStart(() => Promise.reject(bug), { url: 'postgres://db:5432/x', timeoutMs: 1_000, onRetry: () => {}, ...time })).rejects.toBe(bug);
  });

  it('names host and port of a URL, and the file of a SQLite one', () => {
    expect(databaseTarget('postgres://u:p@db.internal:6432/auth')).toBe('db.internal:6432');
    expect(databaseTarget('postgresql://db.internal/auth')).toBe('db.internal:5432');
    expect(databaseTarget('sqlite:./data/auth.db')).toBe('./data/auth.db');
  });

  it('on a real PostgreSQL: a closed port and a missing database are waited out, then reported in one line', async () => {
    const closedPort = new URL(TEST_POSTGRES_URL);
    closedPort.port = '1';
    const missing = new URL(TEST_POSTGRES_URL);
    missing.pathname = `/gatehouse_missing_${Date.now()}`;
    for (const [url, reason] of [
      [closedPort.href, 'connection refused'],
      [missing.href, `database "${missing.pathname.slice(1)}" does not exist`],
    ] as const) {
      const reasons: string[] = [];
      // Time moves only when openAtStart sleeps: a slow connection to the real server cannot use up the 300 ms.
      const time = fakeTime();
      const error = await openAtStart(
        async () => {
          const database = openDatabase(url);
          try {
            await sql`select 1`.execute(database.db as Kysely<unknown>);
            return database;
          } catch (e) {
            await database.close();
            throw e;
          }
        },
        { url, timeoutMs: 300, clock: time.clock, sleep: time.sleep, onRetry: (a) => reasons.push(a.reason) },
      ).catch((e: unknown) => e);
      expect((error as Error).message).toBe(`cannot open the database at ${databaseTarget(url)}: ${reason} (tried 2 times in 0.3 s)`);
      expect(reasons).toEqual([reason]);
      expect(time.sleeps).toEqual([300]);
    }
  });
});

describe('openAppDatabase', () => {
  it("logs each retried attempt and, once open, a lost connection through the app's logger", async () => {
    const time = fakeTime();
    const lines: Array<[Record<string, unknown>, string]> = [];
    const logger = { warn: (fields: Record<string, unknown>, message: string) => void lines.push([fields, message]) };
    let calls = 0;
    let lose: ((error: Error) => void) | undefined;
    const value = await openAppDatabase(
      async ({ onConnectionError }) => {
        calls += 1;
        if (calls < 2) throw refused();
        lose = onConnectionError;
        return 'open';
      },
      { url: 'postgres://gatehouse:pw@10.0.0.5:5432/auth', timeoutMs: 30_000, setting: 'AUTH_DATABASE_CONNECT_TIMEOUT', logger, ...time },
    );
    expect(value).toBe('open');
    expect(lines).toEqual([
      [
        { event: 'database.unreachable_at_start', target: '10.0.0.5:5432', reason: 'connection refused', attempt: 1, retry_in_ms: 500 },
        'cannot reach the database at 10.0.0.5:5432 (connection refused); retrying in 500 ms (AUTH_DATABASE_CONNECT_TIMEOUT)',
      ],
    ]);
    const lost = new Error('terminating connection due to administrator command');
    lose!(lost);
    expect(lines[1]).toEqual([{ err: lost, event: 'database.connection_lost' }, 'database connection lost; the next query reconnects']);
  });
});
