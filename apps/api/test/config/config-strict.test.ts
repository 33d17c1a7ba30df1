/** Strict configuration: NODE_ENV, unknown API_ variables, production's required names, secrets from files. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiDatabaseSettings, ConfigError, loadConfig } from '../../src/config/config.ts';

const PRODUCTION = {
  NODE_ENV: 'production',
  AUTH_ISSUER: 'https://id.example.com',
  API_AUDIENCE: 'https://api.example.com/api',
  API_PUBLIC_URL: 'https://api.example.com',
  API_INTROSPECTION_CLIENT_SECRET: 'a-real-secret',
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

describe('API configuration, strictly', () => {
  it('refuses an unknown API_ variable with the closest name, every problem at once', () => {
    expect(refusal(() => loadConfig({ API_AUDIENCES: 'x', API_JWKS_MAX_AEG: '60', API_PORT: 'no' })).problems).toEqual([
      'API_AUDIENCES: not a setting of api; did you mean API_AUDIENCE?',
      'API_JWKS_MAX_AEG: not a setting of api; did you mean API_JWKS_MAX_AGE?',
      'API_PORT: Invalid input: expected number, received NaN',
    ]);
  });

  it("leaves the client's API_URL, the nginx template's variables and other prefixes alone", () => {
    expect(loadConfig({ ...PRODUCTION, API_URL: 'https://api.example.com', API_SERVER_NAME: 'api.example.com', API_1: '10.0.0.1:4000', AUTH_ISUER: 'x' }).audience).toBe('https://api.example.com/api');
  });

  it('production requires AUTH_ISSUER and API_AUDIENCE: no localhost fallback', () => {
    const { AUTH_ISSUER: _i, API_AUDIENCE: _a, ...rest } = PRODUCTION;
    expect(refusal(() => loadConfig(rest)).problems).toEqual([
      "AUTH_ISSUER must be set when NODE_ENV=production (the authorization server's public https URL, its AUTH_ISSUER)",
      "API_AUDIENCE must be set when NODE_ENV=production (the audience access tokens are issued for, the authorization server's AUTH_API_AUDIENCE)",
    ]);
  });

  it('reads the introspection secret and the database URL from files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-api-secret-'));
    writeFileSync(join(dir, 'secret'), 'from-a-file\n');
    writeFileSync(join(dir, 'db'), 'postgres://api:pw@db.internal:5432/api\n');
    const { API_INTROSPECTION_CLIENT_SECRET: _s, ...rest } = PRODUCTION;
    const config = loadConfig({ ...rest, API_INTROSPECTION_CLIENT_SECRET_FILE: join(dir, 'secret'), API_DATABASE_URL_FILE: join(dir, 'db') });
    expect(config.introspectionClient.clientSecret).toBe('from-a-file');
    expect(config.databaseUrl).toBe('postgres://api:pw@db.internal:5432/api');
    expect(refusal(() => loadConfig({ ...PRODUCTION, API_INTROSPECTION_CLIENT_SECRET_FILE: join(dir, 'secret') })).message).toBe(
      'invalid setting API_INTROSPECTION_CLIENT_SECRET_FILE: set either API_INTROSPECTION_CLIENT_SECRET or API_INTROSPECTION_CLIENT_SECRET_FILE, not both',
    );
  });

  it('a misspelt NODE_ENV is refused with the mode meant, listed with the production problems it would have hidden', () => {
    expect(refusal(() => loadConfig({ ...PRODUCTION, NODE_ENV: 'prod' })).message).toBe('NODE_ENV=prod: not one of development, test, production; did you mean production?');
    expect(refusal(() => loadConfig({ NODE_ENV: 'Production', API_AUDIENCE: 'https://api.example.com/api' })).problems).toEqual([
      'NODE_ENV=Production: not one of development, test, production; did you mean production?',
      "AUTH_ISSUER must be set when NODE_ENV=production (the authorization server's public https URL, its AUTH_ISSUER)",
      'API_INTROSPECTION_CLIENT_SECRET must be set when NODE_ENV=production',
      'API_PUBLIC_URL must be set when NODE_ENV=production (the https origin clients reach the API at)',
    ]);
    expect(loadConfig({ NODE_ENV: 'test' }).production).toBe(false);
    expect(refusal(() => apiDatabaseSettings({ NODE_ENV: 'staging', API_DATABASE_URL: 'sqlite::memory:' })).message).toBe('NODE_ENV=staging: not one of development, test, production');
  });

  it('the migrate step reads only the database, and still refuses unknown names', () => {
    expect(apiDatabaseSettings({ NODE_ENV: 'production', API_DATABASE_URL: 'sqlite::memory:', API_PORT: '4000', API_INTROSPECTION_CLIENT_SECRET_FILE: '/run/secrets/api' })).toEqual({ databaseUrl: 'sqlite::memory:' });
    expect(refusal(() => apiDatabaseSettings({ API_DATABASE_URI: 'sqlite::memory:' })).message).toBe('invalid setting API_DATABASE_URI: not a setting of api; did you mean API_DATABASE_URL?');
  });
});
