/** Every configuration problem at once, database URLs checked at start, one meaning of "seconds". */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

const KEY = Buffer.alloc(32, 7).toString('base64url');
const COOKIE = 'c'.repeat(32);
const secrets = { AUTH_ENCRYPTION_KEY: KEY, AUTH_COOKIE_KEYS: COOKIE };

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('loadConfig accepted the configuration');
}

describe('loadConfig reports', () => {
  it('every problem at once, one line each, schema and cross-field checks together', () => {
    const error = refusal({ NODE_ENV: 'production', AUTH_API_AUDIENCE: 'https://api.example.com/api', AUTH_PORT: 'abc', AUTH_ISSUER: 'not a url', AUTH_DATABASE_URL: 'mysql://gatehouse:pw@db/auth', AUTH_KEY_ROTATION_INTERVAL: '1000' });
    expect(error.message).toBe(
      [
        'invalid settings:',
        '  AUTH_ISSUER: Invalid URL',
        '  AUTH_PORT: Invalid input: expected number, received NaN',
        '  AUTH_DATABASE_URL: unsupported database URL "mysql://gatehouse:***@db/auth": use sqlite:<file>, sqlite::memory: or postgres://user@host:port/db',
        `  AUTH_COOKIE_KEYS and AUTH_ENCRYPTION_KEYS must be set when NODE_ENV=production (each: \`openssl rand -base64 32 | tr '+/' '-_' | tr -d '='\`)`,
        '  AUTH_KEY_PREPUBLISH: 1800 s must be shorter than AUTH_KEY_ROTATION_INTERVAL (1000 s)',
      ].join('\n'),
    );
    expect(error.problems).toHaveLength(5);
  });

  it('an unsupported database URL in one line naming the variable, the password redacted', () => {
    expect(refusal({ ...secrets, AUTH_DATABASE_URL: 'mysql://root:hunter2@db/auth' }).message).toBe(
      'invalid setting AUTH_DATABASE_URL: unsupported database URL "mysql://root:***@db/auth": use sqlite:<file>, sqlite::memory: or postgres://user@host:port/db',
    );
    expect(refusal({ ...secrets, AUTH_DATABASE_URL: 'sqlite:' }).message).toBe(
      'invalid setting AUTH_DATABASE_URL: sqlite URL needs a file path, e.g. sqlite:./data/app.db or sqlite::memory:',
    );
  });

  it('no cross-field problem built on a refused value', () => {
    expect(refusal({ ...secrets, AUTH_KEY_PREPUBLISH: 'soon', AUTH_KEY_ROTATION_INTERVAL: '1000' }).problems).toEqual([
      'invalid setting AUTH_KEY_PREPUBLISH: Invalid input: expected number, received NaN',
    ]);
  });

  it('generates no development secrets for a configuration it refuses', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-config-'));
    refusal({ AUTH_DATA_DIR: dir, AUTH_PORT: 'abc' });
    expect(existsSync(join(dir, 'auth-secrets.json'))).toBe(false);
  });
});

describe('seconds in the auth settings', () => {
  it('are whole and positive: 0 is refused where a zero lifetime makes no sense', () => {
    for (const name of ['AUTH_SESSION_TTL', 'AUTH_ACCESS_TOKEN_TTL', 'AUTH_CODE_TTL', 'AUTH_INTERACTION_TTL', 'AUTH_REGULATION_BAN_TIME']) {
      expect(refusal({ ...secrets, [name]: '0' }).message).toBe(`invalid setting ${name}: Too small: expected number to be >0`);
      expect(refusal({ ...secrets, [name]: '1.5' }).message).toBe(`invalid setting ${name}: Invalid input: expected int, received number`);
    }
    expect(loadConfig({ ...secrets, AUTH_INTERACTION_TTL: '120' }).interactionTtl).toBe(120);
  });
});
