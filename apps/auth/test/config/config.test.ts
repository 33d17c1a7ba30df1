import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';

const KEY = Buffer.alloc(32, 7).toString('base64url');
const COOKIE = 'c'.repeat(32);
/** The public names production requires. */
const PUBLIC = { AUTH_ISSUER: 'https://id.example.com', AUTH_API_AUDIENCE: 'https://api.example.com/api' };

describe('loadConfig', () => {
  it('has working development defaults and generates secrets once into the data dir (0600)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-config-'));
    const config = loadConfig({ AUTH_DATA_DIR: dir });
    expect(config).toMatchObject({
      production: false,
      issuer: 'http://localhost:3000',
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: 'sqlite:./data/auth.db',
      sessionTtl: 14_400,
      accessTokenTtl: 3600,
      authorizationCodeTtl: 60,
      regulation: {
        account: { delayAfter: 5, delay: 30, maxDelay: 900, lockAfter: 30, findTime: 86_400, banTime: 3600 },
        ip: { delayAfter: 100, delay: 0, maxDelay: 0, lockAfter: 100, findTime: 900, banTime: 3600 },
        knownDeviceTtl: 2_592_000,
      },
      keys: { rotationInterval: 2_592_000, prepublish: 1800 },
      trustProxy: false,
      devSeed: true,
      api: { audience: 'http://localhost:4000/api', tokenFormat: 'jwt' },
    });
    expect(config.encryptionKey).toHaveLength(32);
    const file = join(dir, 'auth-secrets.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = loadConfig({ AUTH_DATA_DIR: dir });
    expect(again.encryptionKey.equals(config.encryptionKey)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).cookieKeys).toEqual([...config.cookieKeys]);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('refuses to start in production without the secrets', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', ...PUBLIC })).toThrow(`AUTH_COOKIE_KEYS and AUTH_ENCRYPTION_KEYS must be set when NODE_ENV=production (each: \`openssl rand -base64 32 | tr '+/' '-_' | tr -d '='\`)`);
    expect(() => loadConfig({ NODE_ENV: 'production', ...PUBLIC, AUTH_COOKIE_KEYS: COOKIE })).toThrow(`AUTH_ENCRYPTION_KEYS must be set when NODE_ENV=production (each: \`openssl rand -base64 32 | tr '+/' '-_' | tr -d '='\`)`);
    const config = loadConfig({ NODE_ENV: 'production', ...PUBLIC, AUTH_COOKIE_KEYS: COOKIE, AUTH_ENCRYPTION_KEY: KEY });
    expect(config.production).toBe(true);
    expect(config.devSeed).toBe(false);
  });

  it('names the bad setting in one message', () => {
    expect(() => loadConfig({ AUTH_PORT: 'abc', AUTH_DATA_DIR: mkdtempSync(join(tmpdir(), 'gh-')) })).toThrow(/^invalid setting AUTH_PORT: /);
    expect(() => loadConfig({ AUTH_ENCRYPTION_KEY: 'short', AUTH_COOKIE_KEYS: COOKIE })).toThrow(
      `AUTH_ENCRYPTION_KEY must be 32 bytes, base64url-encoded (\`openssl rand -base64 32 | tr '+/' '-_' | tr -d '='\`); AUTH_ENCRYPTION_KEYS, the keyring, is the name to use`,
    );
    expect(() => loadConfig({ AUTH_ENCRYPTION_KEY: KEY, AUTH_COOKIE_KEYS: 'short' })).toThrow('AUTH_COOKIE_KEYS: each key must be at least 32 characters');
    expect(() => loadConfig({ AUTH_API_TOKEN_FORMAT: 'paseto', AUTH_ENCRYPTION_KEY: KEY, AUTH_COOKIE_KEYS: COOKIE })).toThrow(/^invalid setting AUTH_API_TOKEN_FORMAT/);
  });

  it('AUTH_MIGRATE defaults to auto in development and manual in production', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-config-'));
    expect(loadConfig({ AUTH_DATA_DIR: dir }).migrate).toBe('auto');
    const production = { NODE_ENV: 'production', ...PUBLIC, AUTH_COOKIE_KEYS: 'k'.repeat(32), AUTH_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64url') };
    expect(loadConfig(production).migrate).toBe('manual');
    expect(loadConfig({ ...production, AUTH_MIGRATE: 'auto' }).migrate).toBe('auto');
    expect(() => loadConfig({ AUTH_DATA_DIR: dir, AUTH_MIGRATE: 'never' })).toThrow(/^invalid setting AUTH_MIGRATE: /);
  });

  it('reads the key rotation schedule: seconds, or 0 / off for manual rotation only', () => {
    const base = { AUTH_ENCRYPTION_KEY: KEY, AUTH_COOKIE_KEYS: COOKIE };
    expect(loadConfig({ ...base, AUTH_KEY_ROTATION_INTERVAL: '86400', AUTH_KEY_PREPUBLISH: '900' }).keys).toEqual({ rotationInterval: 86_400, prepublish: 900 });
    expect(loadConfig({ ...base, AUTH_KEY_ROTATION_INTERVAL: 'off' }).keys).toEqual({ rotationInterval: null, prepublish: 1800 });
    expect(loadConfig({ ...base, AUTH_KEY_ROTATION_INTERVAL: '0' }).keys).toEqual({ rotationInterval: null, prepublish: 1800 });
    expect(Object.isFrozen(loadConfig(base).keys)).toBe(true);
  });

  it.each([
    [{ AUTH_KEY_ROTATION_INTERVAL: 'monthly' }, 'invalid setting AUTH_KEY_ROTATION_INTERVAL: expected a number of seconds, or 0 / off for manual rotation only'],
    [{ AUTH_KEY_ROTATION_INTERVAL: '-5' }, 'invalid setting AUTH_KEY_ROTATION_INTERVAL: expected a number of seconds, or 0 / off for manual rotation only'],
    [{ AUTH_KEY_PREPUBLISH: '0' }, /^invalid setting AUTH_KEY_PREPUBLISH: /],
    [{ AUTH_KEY_PREPUBLISH: 'soon' }, /^invalid setting AUTH_KEY_PREPUBLISH: /],
    [{ AUTH_KEY_ROTATION_INTERVAL: '3600', AUTH_KEY_PREPUBLISH: '3600' }, 'invalid setting AUTH_KEY_PREPUBLISH: 3600 s must be shorter than AUTH_KEY_ROTATION_INTERVAL (3600 s)'],
    [{ AUTH_KEY_ROTATION_INTERVAL: '1000' }, 'invalid setting AUTH_KEY_PREPUBLISH: 1800 s must be shorter than AUTH_KEY_ROTATION_INTERVAL (1000 s)'],
  ])('refuses bad key rotation settings %j', (env, message) => {
    expect(() => loadConfig({ AUTH_ENCRYPTION_KEY: KEY, AUTH_COOKIE_KEYS: COOKIE, ...env })).toThrow(message);
  });

  it('reads the brute-force settings', () => {
    const config = loadConfig({
      AUTH_ENCRYPTION_KEY: KEY,
      AUTH_COOKIE_KEYS: COOKIE,
      AUTH_REGULATION_MAX_RETRIES: '10',
      AUTH_REGULATION_DELAY_AFTER: '3',
      AUTH_REGULATION_DELAY: '5',
      AUTH_REGULATION_MAX_DELAY: '60',
      AUTH_REGULATION_FIND_TIME: '3600',
      AUTH_REGULATION_BAN_TIME: '600',
      AUTH_REGULATION_IP_MAX_RETRIES: '40',
      AUTH_REGULATION_IP_FIND_TIME: '300',
      AUTH_REGULATION_KNOWN_DEVICE_TTL: '86400',
    });
    expect(config.regulation).toEqual({
      account: { delayAfter: 3, delay: 5, maxDelay: 60, lockAfter: 10, findTime: 3600, banTime: 600 },
      ip: { delayAfter: 40, delay: 0, maxDelay: 0, lockAfter: 40, findTime: 300, banTime: 600 },
      knownDeviceTtl: 86_400,
    });
    // Equal thresholds: the lock alone, as before the progressive delay.
    expect(loadConfig({ AUTH_ENCRYPTION_KEY: KEY, AUTH_COOKIE_KEYS: COOKIE, AUTH_REGULATION_MAX_RETRIES: '5' }).regulation.account).toMatchObject({ delayAfter: 5, lockAfter: 5 });
  });

  it.each([
    [{ AUTH_REGULATION_MAX_RETRIES: '3' }, 'invalid setting AUTH_REGULATION_DELAY_AFTER: 5 must not exceed AUTH_REGULATION_MAX_RETRIES (3); set them equal for a lock without delays'],
    [{ AUTH_REGULATION_DELAY: '1000' }, 'invalid setting AUTH_REGULATION_DELAY: 1000 s must not exceed AUTH_REGULATION_MAX_DELAY (900 s)'],
    [{ AUTH_REGULATION_FIND_TIME: '900' }, 'invalid setting AUTH_REGULATION_MAX_DELAY: 900 s must be shorter than AUTH_REGULATION_FIND_TIME (900 s)'],
    [{ AUTH_REGULATION_DELAY_AFTER: '0' }, /^invalid setting AUTH_REGULATION_DELAY_AFTER: /],
    [{ AUTH_REGULATION_IP_MAX_RETRIES: 'many' }, /^invalid setting AUTH_REGULATION_IP_MAX_RETRIES: /],
    [{ AUTH_REGULATION_KNOWN_DEVICE_TTL: '0' }, /^invalid setting AUTH_REGULATION_KNOWN_DEVICE_TTL: /],
    // A bad part is reported once, not again by the rule that combines it.
    [{ AUTH_REGULATION_MAX_RETRIES: 'x', AUTH_REGULATION_DELAY_AFTER: '50' }, /^invalid setting AUTH_REGULATION_MAX_RETRIES: [^\n]*$/],
  ])('refuses brute-force settings that make no sense %j', (env, message) => {
    expect(() => loadConfig({ AUTH_ENCRYPTION_KEY: KEY, AUTH_COOKIE_KEYS: COOKIE, ...env })).toThrow(message);
  });

  it('keeps the stored audit trail 365 days unless AUTH_AUDIT_RETENTION_DAYS says otherwise', () => {
    expect(loadConfig({ AUTH_ENCRYPTION_KEY: KEY, AUTH_COOKIE_KEYS: COOKIE }).audit).toEqual({ retentionDays: 365 });
    expect(loadConfig({ AUTH_ENCRYPTION_KEY: KEY, AUTH_COOKIE_KEYS: COOKIE, AUTH_AUDIT_RETENTION_DAYS: '30' }).audit).toEqual({ retentionDays: 30 });
  });

  it.each([
    ['0', 'invalid setting AUTH_AUDIT_RETENTION_DAYS: Too small: expected number to be >0'],
    ['1.5', 'invalid setting AUTH_AUDIT_RETENTION_DAYS: Invalid input: expected int, received number'],
    ['forever', 'invalid setting AUTH_AUDIT_RETENTION_DAYS: Invalid input: expected number, received NaN'],
    ['36501', 'invalid setting AUTH_AUDIT_RETENTION_DAYS: Too big: expected number to be <=36500'],
  ])('refuses AUTH_AUDIT_RETENTION_DAYS=%s', (value, message) => {
    expect(() => loadConfig({ AUTH_ENCRYPTION_KEY: KEY, AUTH_COOKIE_KEYS: COOKIE, AUTH_AUDIT_RETENTION_DAYS: value })).toThrow(message);
  });
});
