/** One issuer variable, every configuration problem at once, database URLs checked at start. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('loadConfig accepted the configuration');
}

describe('loadConfig', () => {
  it('reads the issuer from AUTH_ISSUER, like the other apps, trailing slashes removed', () => {
    expect(loadConfig({ AUTH_ISSUER: 'https://auth.example.com//' }).issuer).toBe('https://auth.example.com');
    expect(loadConfig({ AUTH_ISSUER: 'https://auth.example.com/' }).revocationFeed?.url).toBe('https://auth.example.com/oauth2/v1/revocations');
  });

  it('refuses API_ISSUER, naming its new name, even beside AUTH_ISSUER (no silent alias)', () => {
    const hint = 'invalid setting API_ISSUER: renamed to AUTH_ISSUER; set AUTH_ISSUER instead (API_ISSUER is no longer read)';
    expect(refusal({ API_ISSUER: 'https://auth.example.com' }).message).toBe(hint);
    expect(refusal({ API_ISSUER: 'https://old.example.com', AUTH_ISSUER: 'https://auth.example.com' }).message).toBe(hint);
  });

  it('refuses an unsupported database URL in one line naming the variable, the password redacted', () => {
    expect(refusal({ API_DATABASE_URL: 'mysql://api:s3cret@db:3306/api' }).message).toBe(
      'invalid setting API_DATABASE_URL: unsupported database URL "mysql://api:***@db:3306/api": use sqlite:<file>, sqlite::memory: or postgres://user@host:port/db',
    );
  });

  it('lists every problem at once, schema and production checks together', () => {
    const error = refusal({ NODE_ENV: 'production', AUTH_ISSUER: 'https://auth.example.com', API_AUDIENCE: 'https://api.example.com/api', API_ISSUER: 'https://auth.example.com', API_PORT: '70000', API_DATABASE_URL: 'mysql://db/api', API_TOKEN_MODE: 'magic' });
    expect(error.message).toBe(
      [
        'invalid settings:',
        '  API_ISSUER: renamed to AUTH_ISSUER; set AUTH_ISSUER instead (API_ISSUER is no longer read)',
        '  API_PORT: Too big: expected number to be <=65535',
        '  API_DATABASE_URL: unsupported database URL "mysql://db/api": use sqlite:<file>, sqlite::memory: or postgres://user@host:port/db',
        '  API_TOKEN_MODE: Invalid option: expected one of "jwt"|"introspection"',
        '  API_INTROSPECTION_CLIENT_SECRET must be set when NODE_ENV=production',
        '  API_PUBLIC_URL must be set when NODE_ENV=production (the https origin clients reach the API at)',
      ].join('\n'),
    );
  });

  it('seconds are whole and non-negative: 0 keeps meaning "no leeway" / "no cache" where it did', () => {
    expect(loadConfig({ API_CLOCK_TOLERANCE: '0', API_JWKS_COOLDOWN: '0', API_INTROSPECTION_CACHE_MAX_AGE: '0' })).toMatchObject({
      clockTolerance: 0,
      jwksCooldown: 0,
      introspectionCacheMaxAge: 0,
    });
    expect(refusal({ API_JWKS_MAX_AGE: '-1' }).message).toBe('invalid setting API_JWKS_MAX_AGE: Too small: expected number to be >=0');
    expect(refusal({ API_REVOCATION_MAX_STALENESS: '0' }).message).toBe('invalid setting API_REVOCATION_MAX_STALENESS: Too small: expected number to be >=1');
  });
});
