/** Strict configuration: NODE_ENV, unknown CLIENT_ variables, production's required names, secrets from files. */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientDatabaseUrl, ConfigError, loadConfig } from '../../src/config/config.ts';
import { APPS, checkLaunch, childEnv, checkLauncherEnv } from '../../src/launcher.ts';

const KEY = 'k'.repeat(32);
const PRODUCTION = {
  NODE_ENV: 'production',
  AUTH_ISSUER: 'https://id.example.com',
  API_URL: 'https://api.example.com',
  CLIENT_URL: 'https://app.example.com',
  CLIENT_SECRET: 'a-real-secret-123',
  CLIENT_COOKIE_KEYS: KEY,
};

function refusal(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('client configuration, strictly', () => {
  it('a misspelt NODE_ENV is refused with the mode meant, never taken as development; the migrate step refuses it too', () => {
    expect(refusal(() => loadConfig({ ...PRODUCTION, NODE_ENV: 'prod' })).message).toBe('NODE_ENV=prod: not one of development, test, production; did you mean production?');
    const dir = mkdtempSync(join(tmpdir(), 'gh-client-env-'));
    const { CLIENT_URL: _u, CLIENT_COOKIE_KEYS: _k, ...rest } = PRODUCTION;
    expect(refusal(() => loadConfig({ ...rest, NODE_ENV: 'prod', CLIENT_DATA_DIR: dir })).problems).toEqual([
      'NODE_ENV=prod: not one of development, test, production; did you mean production?',
      'CLIENT_URL must be set when NODE_ENV=production (the public https URL of this app; its /callback is the registered redirect URI)',
      'CLIENT_COOKIE_KEYS must be set when NODE_ENV=production',
    ]);
    expect(readdirSync(dir)).toEqual([]);
    expect(refusal(() => clientDatabaseUrl({ NODE_ENV: 'dev' })).message).toBe('NODE_ENV=dev: not one of development, test, production; did you mean development?');
    expect(loadConfig({ ...PRODUCTION, NODE_ENV: 'test' }).production).toBe(false);
  });

  it('refuses an unknown CLIENT_ variable with the closest name, every problem at once', () => {
    expect(refusal(() => loadConfig({ ...PRODUCTION, CLIENT_SCOPE: 'openid', CLIENT_COOKIE_KEY: KEY, CLIENT_PORT: 'x' })).problems).toEqual([
      'CLIENT_SCOPE: not a setting of client; did you mean CLIENT_SCOPES?',
      'CLIENT_COOKIE_KEY: not a setting of client; did you mean CLIENT_COOKIE_KEYS?',
      'CLIENT_PORT: Invalid input: expected number, received NaN',
    ]);
  });

  it('leaves CLIENT_BACKCHANNEL_LOGOUT_URL to deploy/scripts/register-clients.sh, refusing a misspelling of it', () => {
    const uri = 'http://app-one:3001/backchannel-logout';
    expect(loadConfig({ ...PRODUCTION, CLIENT_BACKCHANNEL_LOGOUT_URL: uri }).publicUrl).toBe('https://app.example.com');
    expect(clientDatabaseUrl({ CLIENT_BACKCHANNEL_LOGOUT_URL: uri })).toBe('sqlite:./data/app-one.db');
    expect(refusal(() => loadConfig({ ...PRODUCTION, CLIENT_BACKCHANNEL_LOGOUT_URI: uri })).problems).toEqual(['invalid setting CLIENT_BACKCHANNEL_LOGOUT_URI: not a setting of client']);
  });

  it('production requires AUTH_ISSUER, API_URL and CLIENT_URL: no localhost fallback', () => {
    const { AUTH_ISSUER: _i, API_URL: _a, CLIENT_URL: _c, ...rest } = PRODUCTION;
    expect(refusal(() => loadConfig(rest)).problems).toEqual([
      "AUTH_ISSUER must be set when NODE_ENV=production (the authorization server's public https URL, its AUTH_ISSUER)",
      "API_URL must be set when NODE_ENV=production (the API's public URL, its API_PUBLIC_URL)",
      'CLIENT_URL must be set when NODE_ENV=production (the public https URL of this app; its /callback is the registered redirect URI)',
    ]);
  });

  it('reads the secret, the cookie keys and the database URL from files, also through the launcher', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-client-secret-'));
    writeFileSync(join(dir, 'secret'), 'from-a-file-123\n');
    writeFileSync(join(dir, 'keys'), `${'q'.repeat(32)}\n`);
    writeFileSync(join(dir, 'db'), 'postgres://client:pw@db.internal:5432/client\n');
    const { CLIENT_SECRET: _s, CLIENT_COOKIE_KEYS: _k, ...rest } = PRODUCTION;
    const config = loadConfig({ ...rest, CLIENT_SECRET_FILE: join(dir, 'secret'), CLIENT_COOKIE_KEYS_FILE: join(dir, 'keys'), CLIENT_DATABASE_URL_FILE: join(dir, 'db') });
    expect([config.clientSecret, config.cookieKeys, config.databaseUrl]).toEqual(['from-a-file-123', ['q'.repeat(32)], 'postgres://client:pw@db.internal:5432/client']);

    const { CLIENT_URL: _u, ...shared } = rest;
    const child = childEnv(APPS[0]!, { ...shared, APP_ONE_URL: 'https://one.example.com', APP_ONE_CLIENT_SECRET_FILE: join(dir, 'secret'), APP_ONE_COOKIE_KEYS_FILE: join(dir, 'keys'), CLIENT_DATABASE_URL_FILE: join(dir, 'db') });
    const launched = loadConfig(child);
    expect([launched.clientSecret, launched.cookieKeys, launched.databaseUrl]).toEqual(['from-a-file-123', ['q'.repeat(32)], 'postgres://client:pw@db.internal:5432/client']);
    expect(clientDatabaseUrl(child)).toBe('postgres://client:pw@db.internal:5432/client');
  });

  it('the migrate step still refuses unknown names', () => {
    expect(refusal(() => clientDatabaseUrl({ CLIENT_DATABSE_URL: 'sqlite::memory:' })).message).toBe(
      'invalid setting CLIENT_DATABSE_URL: not a setting of client; did you mean CLIENT_DATABASE_URL?',
    );
  });
});

describe('the launcher under production', () => {
  it('requires each app\'s public URL: no localhost fallback', () => {
    expect(refusal(() => checkLauncherEnv({ NODE_ENV: 'production', APP_ONE_URL: 'https://one.example.com' })).message).toBe(
      'APP_TWO_URL must be set when NODE_ENV=production (the public https URL of app-two; its /callback is the registered redirect URI)',
    );
    expect(() => checkLauncherEnv({ NODE_ENV: 'production', APP_ONE_URL: 'https://one.example.com', APP_TWO_URL: 'https://two.example.com' })).not.toThrow();
    expect(() => checkLauncherEnv({ NODE_ENV: 'development' })).not.toThrow();
  });

  it('lists the launcher\'s problems and both apps\' in one report: shared ones once, each app\'s own named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-launch-'));
    expect(refusal(() => checkLaunch({ NODE_ENV: 'prod', CLIENT_DATA_DIR: dir, APP_ONE_URL: 'https://one.example.com', APP_ONE_CLIENT_SECRET: 'a-real-secret-123', APP_ONE_COOKIE_KEYS: KEY, APP_TWO_COOKIE_KEY: KEY })).message).toBe(
      [
        'invalid settings:',
        'NODE_ENV=prod: not one of development, test, production; did you mean production?',
        "APP_TWO_COOKIE_KEY: not a setting of the launcher (each app's settings are APP_ONE_* / APP_TWO_*); did you mean APP_TWO_COOKIE_KEYS?",
        'APP_TWO_URL must be set when NODE_ENV=production (the public https URL of app-two; its /callback is the registered redirect URI)',
        "AUTH_ISSUER must be set when NODE_ENV=production (the authorization server's public https URL, its AUTH_ISSUER)",
        "API_URL must be set when NODE_ENV=production (the API's public URL, its API_PUBLIC_URL)",
        'app-two (APP_TWO_*): CLIENT_SECRET and CLIENT_COOKIE_KEYS must be set when NODE_ENV=production',
      ].join('\n  '),
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a renamed variable and an app\'s unparsable URL join the same report, without a stack trace', () => {
    expect(refusal(() => checkLaunch({ APP_ONE_URL: 'one.example.com', APP_ONE_DATABASE_URL: 'sqlite::memory:' })).problems).toEqual([
      'APP_ONE_DATABASE_URL: renamed to CLIENT_DATABASE_URL; set CLIENT_DATABASE_URL instead (APP_ONE_DATABASE_URL is no longer read)',
      'app-one (APP_ONE_*): CLIENT_URL: Invalid URL',
    ]);
  });

  it('a valid launch: both apps\' configurations, nothing written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-launch-'));
    const apps = checkLaunch({ CLIENT_DATA_DIR: dir });
    expect(apps.map(({ config, wouldCreate }) => [config.clientId, config.publicUrl, wouldCreate])).toEqual([
      ['app-one', 'http://localhost:3001', join(dir, 'app-one-secrets.json')],
      ['app-two', 'http://localhost:3002', join(dir, 'app-two-secrets.json')],
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a CLIENT_* or APP_* variable it would drop, with the closest name it reads', () => {
    expect(refusal(() => checkLauncherEnv({ CLIENT_MIGRAT: 'manual', CLIENT_SECRET: 'x', APP_ONE_COOKIE_KEY: 'k', APP_TWO_URL: 'http://localhost:3002' })).problems).toEqual([
      "CLIENT_MIGRAT: not a setting of the launcher (each app's settings are APP_ONE_* / APP_TWO_*); did you mean CLIENT_MIGRATE?",
      "CLIENT_SECRET: not a setting of the launcher (each app's settings are APP_ONE_* / APP_TWO_*)",
      "APP_ONE_COOKIE_KEY: not a setting of the launcher (each app's settings are APP_ONE_* / APP_TWO_*); did you mean APP_ONE_COOKIE_KEYS?",
    ]);
  });
});
