/**
 * The server process at start: refusals are one line per problem on stderr and exit 1, never a
 * stack trace, and nothing listens.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const PRODUCTION = {
  PATH: process.env.PATH ?? '',
  NODE_ENV: 'production',
  AUTH_ISSUER: 'https://id.example.com',
  AUTH_API_AUDIENCE: 'https://api.example.com/api',
  AUTH_COOKIE_KEYS: 'c'.repeat(32),
  AUTH_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64url'),
  AUTH_PORT: '0',
  AUTH_METRICS_PORT: '0',
  LOG_LEVEL: 'info',
};

function start(env: Record<string, string>) {
  return spawnSync(process.execPath, [MAIN], { env, encoding: 'utf8', timeout: 30_000 });
}

describe('auth main', () => {
  it('refuses to start in production on a misspelt AUTH_ISUER, with the suggestion', () => {
    const { AUTH_ISSUER: issuer, ...rest } = PRODUCTION;
    const run = start({ ...rest, AUTH_ISUER: issuer, AUTH_DATABASE_URL: 'sqlite::memory:' });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr: [
        'auth: invalid settings:',
        '  AUTH_ISUER: not a setting of auth; did you mean AUTH_ISSUER?',
        '  AUTH_ISSUER must be set when NODE_ENV=production (the public https URL of this server, e.g. https://id.example.com)',
        '',
      ].join('\n'),
    });
  });

  it('an unreachable database: one line per attempt with host, port and reason, then one line and exit 1 once AUTH_DATABASE_CONNECT_TIMEOUT is spent', () => {
    const run = start({ ...PRODUCTION, AUTH_DATABASE_URL: 'postgres://gatehouse:hunter2@127.0.0.1:1/auth', AUTH_DATABASE_CONNECT_TIMEOUT: '1' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^auth: cannot open the database at 127\.0\.0\.1:1: connection refused \(tried [23] times in 1 s; AUTH_DATABASE_CONNECT_TIMEOUT\)\n$/);
    const attempts = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(attempts.length).toBeGreaterThanOrEqual(1);
    expect(attempts[0]).toMatchObject({
      level: 40,
      event: 'database.unreachable_at_start',
      target: '127.0.0.1:1',
      reason: 'connection refused',
      attempt: 1,
      retry_in_ms: 500,
      msg: 'cannot reach the database at 127.0.0.1:1 (connection refused); retrying in 500 ms (AUTH_DATABASE_CONNECT_TIMEOUT)',
    });
    expect(`${run.stdout}${run.stderr}`).not.toContain('hunter2');
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/\n\s+at /);
  });
});
