/** Strict configuration: NODE_ENV, unknown AUTH_ variables, production's required names and refusals, secrets from files. */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

const KEY = Buffer.alloc(32, 7).toString('base64url');
const COOKIE = 'c'.repeat(32);
const PRODUCTION = {
  NODE_ENV: 'production',
  AUTH_ISSUER: 'https://id.example.com',
  AUTH_API_AUDIENCE: 'https://api.example.com/api',
  AUTH_COOKIE_KEYS: COOKIE,
  AUTH_ENCRYPTION_KEY: KEY,
};

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('loadConfig accepted the configuration');
}

describe('auth configuration, strictly', () => {
  it('production with a misspelt AUTH_ISUER: the unknown name with its suggestion, and the issuer it leaves unset', () => {
    const { AUTH_ISSUER: issuer, ...rest } = PRODUCTION;
    expect(refusal({ ...rest, AUTH_ISUER: issuer }).message).toBe(
      [
        'invalid settings:',
        '  AUTH_ISUER: not a setting of auth; did you mean AUTH_ISSUER?',
        '  AUTH_ISSUER must be set when NODE_ENV=production (the public https URL of this server, e.g. https://id.example.com)',
      ].join('\n'),
    );
  });

  it('a misspelt regulation setting is refused in development too, with every other problem', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-strict-'));
    expect(refusal({ AUTH_DATA_DIR: dir, AUTH_REGULATON_MAX_RETRIES: '3', AUTH_PORT: 'x', AUTH_SOMETHING: '1' }).problems).toEqual([
      'AUTH_REGULATON_MAX_RETRIES: not a setting of auth; did you mean AUTH_REGULATION_MAX_RETRIES?',
      'AUTH_SOMETHING: not a setting of auth',
      'AUTH_PORT: Invalid input: expected number, received NaN',
    ]);
  });

  it('leaves other prefixes and the nginx template\'s AUTH_ variables alone', () => {
    const config = loadConfig({ ...PRODUCTION, API_AUDIENCE: 'x', CLIENT_ISUER: 'x', AUTH_SERVER_NAME: 'id.example.com', AUTH_LISTEN: '443', AUTH_1: '10.0.0.1:3000', AUTH_2: '10.0.0.2:3000' });
    expect(config.issuer).toBe('https://id.example.com');
  });

  it('production requires the public names: no localhost fallback', () => {
    const { AUTH_ISSUER: _issuer, AUTH_API_AUDIENCE: _audience, ...rest } = PRODUCTION;
    expect(refusal(rest).problems).toEqual([
      'AUTH_ISSUER must be set when NODE_ENV=production (the public https URL of this server, e.g. https://id.example.com)',
      "AUTH_API_AUDIENCE must be set when NODE_ENV=production (the resource server's audience, the same as the API's API_AUDIENCE)",
    ]);
  });

  it('production refuses AUTH_DEV_SEED=true, and takes false', () => {
    expect(refusal({ ...PRODUCTION, AUTH_DEV_SEED: 'true' }).message).toBe(
      'AUTH_DEV_SEED must not be true when NODE_ENV=production: it creates the demo user and registers the development clients with their public secrets',
    );
    expect(loadConfig({ ...PRODUCTION, AUTH_DEV_SEED: 'false' }).devSeed).toBe(false);
  });

  it('AUTH_TEST_CLOCK is off by default, may be on outside production, and production refuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-strict-'));
    expect(loadConfig({ AUTH_DATA_DIR: dir }).testClock).toBe(false);
    expect(loadConfig({ AUTH_DATA_DIR: dir, AUTH_TEST_CLOCK: 'true' }).testClock).toBe(true);
    expect(refusal({ ...PRODUCTION, AUTH_TEST_CLOCK: 'true' }).message).toBe("AUTH_TEST_CLOCK must not be true when NODE_ENV=production: it lets any client move the server's clock");
    expect(loadConfig({ ...PRODUCTION, AUTH_TEST_CLOCK: 'false' }).testClock).toBe(false);
  });

  it('reads each secret from <NAME>_FILE, the trailing newline trimmed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-secret-'));
    const { AUTH_COOKIE_KEYS: _c, AUTH_ENCRYPTION_KEY: _k, ...rest } = PRODUCTION;
    writeFileSync(join(dir, 'cookie'), `${'d'.repeat(32)},${'e'.repeat(32)}\n`);
    writeFileSync(join(dir, 'key'), `${KEY}\n`);
    writeFileSync(join(dir, 'db'), 'postgres://gatehouse:pw@db.internal:5432/auth\n');
    const config = loadConfig({ ...rest, AUTH_COOKIE_KEYS_FILE: join(dir, 'cookie'), AUTH_ENCRYPTION_KEY_FILE: join(dir, 'key'), AUTH_DATABASE_URL_FILE: join(dir, 'db') });
    expect(config.cookieKeys).toEqual(['d'.repeat(32), 'e'.repeat(32)]);
    expect(config.encryptionKey.equals(Buffer.from(KEY, 'base64url'))).toBe(true);
    expect(config.databaseUrl).toBe('postgres://gatehouse:pw@db.internal:5432/auth');
  });

  it('refuses a secret set twice, or from a file that cannot be read, naming the variable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-secret-'));
    writeFileSync(join(dir, 'key'), KEY);
    const { AUTH_COOKIE_KEYS: _c, ...rest } = PRODUCTION;
    expect(refusal({ ...rest, AUTH_ENCRYPTION_KEY_FILE: join(dir, 'key'), AUTH_COOKIE_KEYS_FILE: join(dir, 'missing') }).problems).toEqual([
      `AUTH_COOKIE_KEYS_FILE: cannot read ${join(dir, 'missing')}: no such file`,
      'AUTH_ENCRYPTION_KEY_FILE: set either AUTH_ENCRYPTION_KEY or AUTH_ENCRYPTION_KEY_FILE, not both',
    ]);
  });

  it('a misspelt NODE_ENV is refused with the mode meant, never taken as development', () => {
    expect(refusal({ ...PRODUCTION, NODE_ENV: 'prod' }).message).toBe('NODE_ENV=prod: not one of development, test, production; did you mean production?');
    expect(loadConfig({ ...PRODUCTION, NODE_ENV: 'test' }).production).toBe(false);
  });

  it('a misspelt NODE_ENV is listed with the production problems it would have hidden; no dev secret is written, no dev seed on', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-strict-'));
    expect(refusal({ NODE_ENV: 'prod', AUTH_DATA_DIR: dir, AUTH_DEV_SEED: 'true', AUTH_ISUER: 'https://id.example.com' }).problems).toEqual([
      'NODE_ENV=prod: not one of development, test, production; did you mean production?',
      'AUTH_ISUER: not a setting of auth; did you mean AUTH_ISSUER?',
      'AUTH_ISSUER must be set when NODE_ENV=production (the public https URL of this server, e.g. https://id.example.com)',
      "AUTH_API_AUDIENCE must be set when NODE_ENV=production (the resource server's audience, the same as the API's API_AUDIENCE)",
      'AUTH_DEV_SEED must not be true when NODE_ENV=production: it creates the demo user and registers the development clients with their public secrets',
      expect.stringMatching(/^AUTH_COOKIE_KEYS and AUTH_ENCRYPTION_KEYS? must be set when NODE_ENV=production/),
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('AUTH_DATABASE_CONNECT_TIMEOUT: seconds of retrying at start (30 by default, 0 for one attempt)', () => {
    expect(loadConfig(PRODUCTION).databaseConnectTimeout).toBe(30);
    expect(loadConfig({ ...PRODUCTION, AUTH_DATABASE_CONNECT_TIMEOUT: '0' }).databaseConnectTimeout).toBe(0);
    expect(refusal({ ...PRODUCTION, AUTH_DATABASE_CONNECT_TIMEOUT: 'soon' }).message).toBe('invalid setting AUTH_DATABASE_CONNECT_TIMEOUT: Invalid input: expected number, received NaN');
  });
});
