/** One database variable, every configuration problem at once, database URLs checked at start. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, clientDatabaseUrl, loadConfig } from '../../src/config/config.ts';
import { APPS, childEnv } from '../../src/launcher.ts';
import { clientMigrations } from '../../src/storage/migrations.ts';

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-client-report-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function refusal(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

const MYSQL = 'unsupported database URL "mysql://app:***@db/client": use sqlite:<file>, sqlite::memory: or postgres://user@host:port/db';

describe('the client database URL', () => {
  it('an unsupported CLIENT_DATABASE_URL fails loadConfig and the migrate step in one line naming it', () => {
    const env = { CLIENT_DATA_DIR: dataDir(), CLIENT_DATABASE_URL: 'mysql://app:pw@db/client' };
    expect(refusal(() => loadConfig(env)).message).toBe(`invalid setting CLIENT_DATABASE_URL: ${MYSQL}`);
    expect(refusal(() => clientDatabaseUrl(env)).message).toBe(`invalid setting CLIENT_DATABASE_URL: ${MYSQL}`);
  });

  it('the old APP_ONE_DATABASE_URL / APP_TWO_DATABASE_URL are refused with the new name, by the app and by the launcher', () => {
    const hint = 'invalid setting APP_ONE_DATABASE_URL: renamed to CLIENT_DATABASE_URL; set CLIENT_DATABASE_URL instead (APP_ONE_DATABASE_URL is no longer read)';
    expect(refusal(() => loadConfig({ CLIENT_DATA_DIR: dataDir(), APP_ONE_DATABASE_URL: 'sqlite::memory:' })).message).toBe(hint);
    expect(refusal(() => childEnv(APPS[0]!, { APP_ONE_DATABASE_URL: 'sqlite::memory:' })).message).toBe(hint);
    expect(refusal(() => childEnv(APPS[0]!, { APP_TWO_DATABASE_URL: 'sqlite::memory:' })).message).toBe(
      'invalid setting APP_TWO_DATABASE_URL: renamed to CLIENT_DATABASE_URL; set CLIENT_DATABASE_URL instead (APP_TWO_DATABASE_URL is no longer read)',
    );
  });

  it('the launcher shares CLIENT_DATABASE_URL; without it each app keeps its own SQLite file', () => {
    const shared = { CLIENT_DATABASE_URL: 'postgres://db/client', CLIENT_DATA_DIR: '/srv/data' };
    expect(APPS.map((app) => clientDatabaseUrl(childEnv(app, shared)))).toEqual(['postgres://db/client', 'postgres://db/client']);
    expect(APPS.map((app) => clientDatabaseUrl(childEnv(app, { CLIENT_DATA_DIR: '/srv/data/' })))).toEqual(['sqlite:/srv/data/app-one.db', 'sqlite:/srv/data/app-two.db']);
  });

  it('the migrate script and the launcher stop with the rename hint before touching anything', () => {
    const appDir = fileURLToPath(new URL('../../', import.meta.url));
    const env = { PATH: process.env.PATH ?? '', CLIENT_DATA_DIR: dataDir(), APP_TWO_DATABASE_URL: 'sqlite::memory:' };
    const hint = 'invalid setting APP_TWO_DATABASE_URL: renamed to CLIENT_DATABASE_URL; set CLIENT_DATABASE_URL instead (APP_TWO_DATABASE_URL is no longer read)';
    const migrate = spawnSync(process.execPath, ['src/migrate.ts'], { cwd: appDir, env, encoding: 'utf8', timeout: 30_000 });
    expect({ status: migrate.status, stdout: migrate.stdout, stderr: migrate.stderr }).toEqual({ status: 1, stdout: '', stderr: `app-one: ${hint}\napp-two: ${hint}\n` });
    const start = spawnSync(process.execPath, ['src/start.ts'], { cwd: appDir, env, encoding: 'utf8', timeout: 30_000 });
    expect({ status: start.status, stdout: start.stdout, stderr: start.stderr }).toEqual({ status: 1, stdout: '', stderr: `client: ${hint}\n` });
  });

  it('one shared database serves both apps: migrate applies it once', () => {
    const dir = dataDir();
    const url = `sqlite:${join(dir, 'client.db')}`;
    const appDir = fileURLToPath(new URL('../../', import.meta.url));
    const all = Object.keys(clientMigrations);
    const migrate = spawnSync(process.execPath, ['src/migrate.ts'], {
      cwd: appDir,
      env: { PATH: process.env.PATH ?? '', CLIENT_DATA_DIR: dir, CLIENT_DATABASE_URL: url },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect({ status: migrate.status, stdout: migrate.stdout, stderr: migrate.stderr }).toEqual({
      status: 0,
      stdout: `app-one: applied ${all.length} migration${all.length === 1 ? '' : 's'} to ${url}: ${all.join(', ')}\napp-two: the schema of ${url} is already up to date\n`,
      stderr: '',
    });
  });
});

describe('loadConfig reports', () => {
  it('every problem at once, schema and cross-field checks together', () => {
    const error = refusal(() =>
      loadConfig({ NODE_ENV: 'production', API_URL: 'https://api.example.com', CLIENT_URL: 'https://app.example.com', CLIENT_PORT: 'x', AUTH_ISSUER: 'http://id.example.com', CLIENT_SCOPES: 'profile', CLIENT_DATABASE_URL: 'mysql://app:pw@db/client' }),
    );
    expect(error.message).toBe(
      [
        'invalid settings:',
        '  CLIENT_PORT: Invalid input: expected number, received NaN',
        `  CLIENT_DATABASE_URL: ${MYSQL}`,
        '  CLIENT_SECRET and CLIENT_COOKIE_KEYS must be set when NODE_ENV=production',
        '  AUTH_ISSUER must be https when NODE_ENV=production (plain http is allowed for a loopback issuer only)',
        '  CLIENT_SCOPES: must include openid',
      ].join('\n'),
    );
  });

  it('seconds are whole and non-negative; the session and login lifetimes keep their minimums', () => {
    expect(loadConfig({ CLIENT_DATA_DIR: dataDir(), CLIENT_SSO_CHECK_INTERVAL: '0', CLIENT_REFRESH_SKEW: '0' })).toMatchObject({ ssoCheckInterval: 0, refreshSkew: 0 });
    expect(refusal(() => loadConfig({ CLIENT_DATA_DIR: dataDir(), CLIENT_REFRESH_SKEW: '-1' })).message).toBe(
      'invalid setting CLIENT_REFRESH_SKEW: Too small: expected number to be >=0',
    );
    expect(refusal(() => loadConfig({ CLIENT_DATA_DIR: dataDir(), CLIENT_SESSION_TTL: '59' })).message).toBe(
      'invalid setting CLIENT_SESSION_TTL: Too small: expected number to be >=60',
    );
  });
});
