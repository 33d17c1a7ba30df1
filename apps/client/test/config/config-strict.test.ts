/** Strict configuration: unknown CLIENT_ variables, production's required names, secrets from files. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientDatabaseUrl, ConfigError, loadConfig } from '../../src/config/config.ts';
import { APPS, childEnv, checkLauncherEnv } from '../../src/launcher.ts';

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
  it('refuses an unknown CLIENT_ variable with the closest name, every problem at once', () => {
    expect(refusal(() => loadConfig({ ...PRODUCTION, CLIENT_SCOPE: 'openid', CLIENT_COOKIE_KEY: KEY, CLIENT_PORT: 'x' })).problems).toEqual([
      'CLIENT_SCOPE: not a setting of client; did you mean CLIENT_SCOPES?',
      'CLIENT_COOKIE_KEY: not a setting of client; did you mean CLIENT_COOKIE_KEYS?',
      'CLIENT_PORT: Invalid input: expected number, received NaN',
    ]);
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

  it('refuses a CLIENT_* or APP_* variable it would drop, with the closest name it reads', () => {
    expect(refusal(() => checkLauncherEnv({ CLIENT_MIGRAT: 'manual', CLIENT_SECRET: 'x', APP_ONE_COOKIE_KEY: 'k', APP_TWO_URL: 'http://localhost:3002' })).problems).toEqual([
      "CLIENT_MIGRAT: not a setting of the launcher (each app's settings are APP_ONE_* / APP_TWO_*); did you mean CLIENT_MIGRATE?",
      "CLIENT_SECRET: not a setting of the launcher (each app's settings are APP_ONE_* / APP_TWO_*)",
      "APP_ONE_COOKIE_KEY: not a setting of the launcher (each app's settings are APP_ONE_* / APP_TWO_*); did you mean APP_ONE_COOKIE_KEYS?",
    ]);
  });
});
