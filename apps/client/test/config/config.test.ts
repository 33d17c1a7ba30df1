import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEV_DEFAULTS } from '@gatehouse/contracts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

const dataDir = () => mkdtempSync(join(tmpdir(), 'gatehouse-client-config-'));
const KEY = 'k'.repeat(32);
/** Public names production requires beside AUTH_ISSUER. */
const PUBLIC = { API_URL: 'https://api.example.com', CLIENT_URL: 'https://app.example.com' };

describe('loadConfig', () => {
  it('has development defaults for app-one', () => {
    const dir = dataDir();
    const config = loadConfig({ CLIENT_DATA_DIR: dir });
    expect(config).toMatchObject({
      production: false,
      clientId: 'app-one',
      clientSecret: DEV_DEFAULTS.clientSecrets['app-one'],
      host: '127.0.0.1',
      port: 3001,
      publicUrl: 'http://localhost:3001',
      redirectUri: 'http://localhost:3001/callback',
      postLogoutRedirectUri: 'http://localhost:3001/signed-out',
      issuer: 'http://localhost:3000',
      allowInsecureIssuer: true,
      apiUrl: 'http://localhost:4000',
      databaseUrl: `sqlite:${dir}/app-one.db`,
      scopes: ['openid', 'profile', 'email', 'movies:read', 'movies:write'],
      collection: 'movies',
      itemField: 'title',
      cookies: { session: 'app-one.sid', login: 'app-one.login' },
      metrics: { host: '127.0.0.1', port: 9466 },
    });
    expect(Object.isFrozen(config.metrics)).toBe(true);
    expect(Object.isFrozen(config)).toBe(true);
    // The generated cookie key is kept for the next start, readable by its owner only.
    const file = join(dir, 'app-one-secrets.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ cookieKeys: [config.cookieKeys[0]] });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadConfig({ CLIENT_DATA_DIR: dir }).cookieKeys).toEqual(config.cookieKeys);
  });

  it('gives app-two its own port, secret, database and cookie names', () => {
    const config = loadConfig({ CLIENT_ID: 'app-two', CLIENT_DATA_DIR: dataDir() });
    expect(config.port).toBe(3002);
    expect(config.clientSecret).toBe(DEV_DEFAULTS.clientSecrets['app-two']);
    expect(config.databaseUrl).toMatch(/app-two\.db$/);
    expect(config.cookies).toEqual({ session: 'app-two.sid', login: 'app-two.login' });
    expect(config.metrics).toEqual({ host: '127.0.0.1', port: 9467 });
  });

  it('reads CLIENT_METRICS_HOST and CLIENT_METRICS_PORT; 0 means a free port', () => {
    expect(loadConfig({ CLIENT_DATA_DIR: dataDir(), CLIENT_METRICS_HOST: '0.0.0.0', CLIENT_METRICS_PORT: '9100' }).metrics).toEqual({ host: '0.0.0.0', port: 9100 });
    expect(loadConfig({ CLIENT_ID: 'app-two', CLIENT_DATA_DIR: dataDir(), CLIENT_METRICS_PORT: '0' }).metrics).toEqual({ host: '127.0.0.1', port: 0 });
    expect(() => loadConfig({ CLIENT_DATA_DIR: dataDir(), CLIENT_METRICS_PORT: '-1' })).toThrow(/^invalid setting CLIENT_METRICS_PORT: /);
  });

  it('refuses to start in production without CLIENT_SECRET and CLIENT_COOKIE_KEYS', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', ...PUBLIC, AUTH_ISSUER: 'https://id.example.com' })).toThrow(
      new ConfigError('CLIENT_SECRET and CLIENT_COOKIE_KEYS must be set when NODE_ENV=production'),
    );
    expect(() => loadConfig({ NODE_ENV: 'production', ...PUBLIC, CLIENT_COOKIE_KEYS: KEY, AUTH_ISSUER: 'https://id.example.com' })).toThrow(
      'CLIENT_SECRET must be set when NODE_ENV=production',
    );
  });

  it('refuses the development secrets in production', () => {
    expect(() =>
      loadConfig({ NODE_ENV: 'production', ...PUBLIC, CLIENT_SECRET: DEV_DEFAULTS.clientSecrets['app-one'], CLIENT_COOKIE_KEYS: KEY, AUTH_ISSUER: 'https://id.example.com' }),
    ).toThrow('CLIENT_SECRET must not be a development default when NODE_ENV=production');
  });

  it('accepts a plain-http issuer in production only on loopback', () => {
    const base = { NODE_ENV: 'production', ...PUBLIC, CLIENT_SECRET: 'a-real-secret-123', CLIENT_COOKIE_KEYS: KEY };
    expect(loadConfig({ ...base, AUTH_ISSUER: 'http://localhost:3000' }).allowInsecureIssuer).toBe(true);
    expect(loadConfig({ ...base, AUTH_ISSUER: 'https://id.example.com' }).allowInsecureIssuer).toBe(false);
    expect(() => loadConfig({ ...base, AUTH_ISSUER: 'http://id.example.com' })).toThrow(
      'AUTH_ISSUER must be https when NODE_ENV=production (plain http is allowed for a loopback issuer only)',
    );
  });

  it('needs a secret for a client id without a development default', () => {
    expect(() => loadConfig({ CLIENT_ID: 'app-three', CLIENT_DATA_DIR: dataDir() })).toThrow(
      'CLIENT_SECRET must be set: there is no development default for client "app-three"',
    );
  });

  it('names the bad setting', () => {
    expect(() => loadConfig({ CLIENT_PORT: 'x', CLIENT_DATA_DIR: dataDir() })).toThrow(/^invalid setting CLIENT_PORT: /);
    expect(() => loadConfig({ CLIENT_SCOPES: 'profile email', CLIENT_DATA_DIR: dataDir() })).toThrow('invalid setting CLIENT_SCOPES: must include openid');
    expect(() => loadConfig({ CLIENT_COOKIE_KEYS: 'short', CLIENT_DATA_DIR: dataDir() })).toThrow(
      'CLIENT_COOKIE_KEYS: each key must be at least 32 characters',
    );
    expect(() => loadConfig({ CLIENT_ID: 'bad id', CLIENT_DATA_DIR: dataDir() })).toThrow(/^invalid setting CLIENT_ID: /);
  });

  it('takes the public URL, collection and item field from the environment', () => {
    const config = loadConfig({ CLIENT_URL: 'https://app.example.com/', CLIENT_COLLECTION: 'cars', CLIENT_DATA_DIR: dataDir() });
    expect(config.redirectUri).toBe('https://app.example.com/callback');
    expect(config.itemField).toBe('model');
  });
});
