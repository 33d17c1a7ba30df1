import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/config.ts';

/** The public names production requires. */
const PUBLIC = { AUTH_ISSUER: 'https://id.example.com', API_AUDIENCE: 'https://api.example.com/api' };

describe('loadConfig', () => {
  it('has development defaults and freezes the result', () => {
    const config = loadConfig({});
    expect(config).toEqual({
      production: false,
      host: '127.0.0.1',
      port: 4000,
      databaseUrl: 'sqlite:./data/api.db',
      databaseConnectTimeout: 30,
      publicUrl: 'http://localhost:4000',
      migrate: 'auto',
      issuer: 'http://localhost:3000',
      audience: 'http://localhost:4000/api',
      tokenMode: 'jwt',
      introspectionClient: { clientId: 'api', clientSecret: 'dev-api-secret' },
      collectionsFile: fileURLToPath(new URL('../../collections.json', import.meta.url)),
      trustProxy: false,
      logLevel: 'info',
      bodyLimit: 1048576,
      realm: 'gatehouse-api',
      clockTolerance: 30,
      dpopProofWindow: 60,
      jwksCooldown: 30,
      jwksMaxAge: 600,
      tokenCacheSize: 10000,
      introspectionCacheMaxAge: 60,
      revocationFeed: { url: 'http://localhost:3000/oauth2/v1/revocations', maxStaleness: 15, listSize: 100_000 },
      metrics: { host: '127.0.0.1', port: 9465 },
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.revocationFeed)).toBe(true);
    expect(Object.isFrozen(config.introspectionClient)).toBe(true);
    expect(Object.isFrozen(config.metrics)).toBe(true);
  });

  it('reads where the metrics listener goes; port 0 means a free port', () => {
    expect(loadConfig({ API_METRICS_HOST: '0.0.0.0', API_METRICS_PORT: '9100' }).metrics).toEqual({ host: '0.0.0.0', port: 9100 });
    expect(loadConfig({ API_METRICS_PORT: '0' }).metrics).toEqual({ host: '127.0.0.1', port: 0 });
    expect(() => loadConfig({ API_METRICS_PORT: '65536' })).toThrow(/^invalid setting API_METRICS_PORT: /);
    expect(() => loadConfig({ API_METRICS_HOST: '' })).toThrow(/^invalid setting API_METRICS_HOST: /);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      API_PORT: '0',
      AUTH_ISSUER: 'https://auth.example.com/',
      API_TOKEN_MODE: 'introspection',
      API_INTROSPECTION_CLIENT_SECRET: 's3cret',
      TRUST_PROXY: 'true',
      API_BODY_LIMIT: '2048',
    });
    expect(config).toMatchObject({ port: 0, issuer: 'https://auth.example.com', tokenMode: 'introspection', trustProxy: true, bodyLimit: 2048 });
    expect(config.introspectionClient.clientSecret).toBe('s3cret');
  });

  it('reads the revocation feed settings, or turns the feed off', () => {
    expect(
      loadConfig({
        AUTH_ISSUER: 'https://auth.example.com',
        API_REVOCATION_FEED_URL: 'https://auth.internal:8443/oauth2/v1/revocations',
        API_REVOCATION_MAX_STALENESS: '30',
        API_REVOCATION_LIST_SIZE: '500',
      }).revocationFeed,
    ).toEqual({ url: 'https://auth.internal:8443/oauth2/v1/revocations', maxStaleness: 30, listSize: 500 });
    expect(loadConfig({ API_REVOCATION_FEED: 'false' }).revocationFeed).toBeNull();
    expect(() => loadConfig({ API_REVOCATION_MAX_STALENESS: '0' })).toThrow(/^invalid setting API_REVOCATION_MAX_STALENESS: /);
    expect(() => loadConfig({ API_REVOCATION_FEED: 'maybe' })).toThrow(/^invalid setting API_REVOCATION_FEED: /);
  });

  it('reads the DPoP proof window, 1 to 300 seconds', () => {
    expect(loadConfig({ API_DPOP_PROOF_WINDOW: '300' }).dpopProofWindow).toBe(300);
    expect(loadConfig({ API_DPOP_PROOF_WINDOW: '1' }).dpopProofWindow).toBe(1);
    for (const bad of ['0', '301', 'soon']) {
      expect(() => loadConfig({ API_DPOP_PROOF_WINDOW: bad }), bad).toThrow(/^invalid setting API_DPOP_PROOF_WINDOW: /);
    }
  });

  it('refuses the development secret in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow('API_INTROSPECTION_CLIENT_SECRET must be set when NODE_ENV=production');
    expect(() => loadConfig({ NODE_ENV: 'production', API_INTROSPECTION_CLIENT_SECRET: 'dev-api-secret' })).toThrow(
      'API_INTROSPECTION_CLIENT_SECRET must not be the development default when NODE_ENV=production',
    );
    expect(loadConfig({ NODE_ENV: 'production', ...PUBLIC, API_INTROSPECTION_CLIENT_SECRET: 'real', API_PUBLIC_URL: 'https://api.example.com' }).production).toBe(true);
  });

  it('fails with one message naming the variable', () => {
    expect(() => loadConfig({ API_TOKEN_MODE: 'magic' })).toThrow(/^invalid setting API_TOKEN_MODE: /);
    expect(() => loadConfig({ API_PORT: '70000' })).toThrow(/^invalid setting API_PORT: /);
    expect(() => loadConfig({ AUTH_ISSUER: 'not a url' })).toThrow(/^invalid setting AUTH_ISSUER: /);
    expect(() => loadConfig({ API_REALM: 'a"b' })).toThrow(/^invalid setting API_REALM: /);
  });

  it('reads API_PUBLIC_URL, an http(s) origin, required in production', () => {
    expect(loadConfig({ API_PUBLIC_URL: 'https://api.example.com/' }).publicUrl).toBe('https://api.example.com');
    expect(loadConfig({ API_PUBLIC_URL: 'http://127.0.0.1:4100' }).publicUrl).toBe('http://127.0.0.1:4100');
    for (const bad of ['https://api.example.com/api', 'https://api.example.com?x=1', 'ftp://api.example.com', 'api.example.com']) {
      expect(() => loadConfig({ API_PUBLIC_URL: bad }), bad).toThrow(/^invalid setting API_PUBLIC_URL: /);
    }
    expect(() => loadConfig({ NODE_ENV: 'production', API_INTROSPECTION_CLIENT_SECRET: 'real' })).toThrow(
      'API_PUBLIC_URL must be set when NODE_ENV=production (the https origin clients reach the API at)',
    );
  });
});
