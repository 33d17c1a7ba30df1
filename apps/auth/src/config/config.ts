/**
 * The authorization server's settings, read once from the environment.
 * Rules:
 * - every variable has a development default, except the secrets, which are generated
 *   once into `<dataDir>/auth-secrets.json` outside production;
 * - with NODE_ENV=production, AUTH_COOKIE_KEYS and AUTH_ENCRYPTION_KEY must be set;
 * - metrics listen on a port of their own (AUTH_METRICS_HOST/PORT, loopback 9464 by default);
 *   port 0 binds a free port, as for AUTH_PORT;
 * - a bad value fails start-up with one message naming the variable;
 * - AUTH_KEY_ROTATION_INTERVAL is seconds, or `0` / `off` for manual rotation only;
 *   AUTH_KEY_PREPUBLISH must be shorter than it (a new key has to start signing before the next
 *   one is due). It must also be longer than the resource servers' JWKS cache (the API's
 *   API_JWKS_MAX_AGE, 600 s by default): that is the operator's duty, this app cannot see it.
 */
import { z } from 'zod';
import { DEFAULT_API_AUDIENCE, DEFAULT_API_SCOPES } from '@gatehouse/contracts';
import { ConfigError, parseEnv } from '@gatehouse/config';
import { loadDevSecrets } from './dev-secrets.ts';
import type { MigrateMode } from '@gatehouse/db';

export interface DevClient {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly postLogoutRedirectUri: string;
}

export interface AuthConfig {
  readonly production: boolean;
  readonly issuer: string;
  readonly host: string;
  readonly port: number;
  readonly databaseUrl: string;
  /** `auto`: apply pending migrations on start (development default); `manual`: refuse to start until `authctl db migrate` ran (production default). */
  readonly migrate: MigrateMode;
  readonly dataDir: string;
  /** Keys signing the session and interaction cookies; the first signs, all verify. */
  readonly cookieKeys: readonly string[];
  /** 32-byte AES-256-GCM key for secrets at rest (TOTP secrets, private keys, client secrets). */
  readonly encryptionKey: Buffer;
  /** Lifetime of the SSO session cookie, seconds. */
  readonly sessionTtl: number;
  readonly accessTokenTtl: number;
  readonly idTokenTtl: number;
  readonly refreshTokenTtl: number;
  readonly authorizationCodeTtl: number;
  readonly interactionTtl: number;
  readonly api: {
    readonly audience: string;
    readonly scopes: readonly string[];
    /** `jwt` issues RFC 9068 access tokens; `opaque` issues reference tokens checked by introspection. */
    readonly tokenFormat: 'jwt' | 'opaque';
  };
  readonly keys: {
    /** Seconds between automatic signing-key rotations; null rotates only by hand (`authctl keys rotate`). */
    readonly rotationInterval: number | null;
    /** Seconds a new key is published in the JWKS before it starts signing. */
    readonly prepublish: number;
  };
  readonly regulation: {
    readonly maxRetries: number;
    readonly findTime: number;
    readonly banTime: number;
  };
  readonly trustProxy: boolean;
  readonly logLevel: string;
  /** Register the dev clients and the demo user at start (never in production unless asked). */
  readonly devSeed: boolean;
  readonly devClients: readonly DevClient[];

  // Observability
  /** Where GET /metrics listens: a listener of its own, never the issuer's port. Port 0 picks a free port. */
  readonly metrics: { readonly host: string; readonly port: number };
}

export { ConfigError };

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => ['true', '1', 'yes'].includes(v));
const seconds = z.coerce.number().int().positive();
const rotationInterval = z
  .string()
  .regex(/^(off|\d+)$/, 'expected a number of seconds, or 0 / off for manual rotation only')
  .transform((v) => (v === 'off' || Number(v) === 0 ? null : Number(v)));
const list = z.string().transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));

const Env = z.object({
  NODE_ENV: z.string().default('development'),
  AUTH_ISSUER: z.url().default('http://localhost:3000'),
  AUTH_HOST: z.string().default('127.0.0.1'),
  AUTH_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  AUTH_DATABASE_URL: z.string().default('sqlite:./data/auth.db'),
  AUTH_MIGRATE: z.enum(['auto', 'manual']).optional(),
  AUTH_DATA_DIR: z.string().default('./data'),
  AUTH_COOKIE_KEYS: list.optional(),
  AUTH_ENCRYPTION_KEY: z.string().optional(),
  AUTH_SESSION_TTL: seconds.default(4 * 3600),
  AUTH_ACCESS_TOKEN_TTL: seconds.default(3600),
  AUTH_ID_TOKEN_TTL: seconds.default(3600),
  AUTH_REFRESH_TOKEN_TTL: seconds.default(14 * 24 * 3600),
  AUTH_CODE_TTL: seconds.default(60),
  AUTH_INTERACTION_TTL: seconds.default(600),
  AUTH_API_AUDIENCE: z.string().min(1).default(DEFAULT_API_AUDIENCE),
  AUTH_API_SCOPES: list.optional(),
  AUTH_API_TOKEN_FORMAT: z.enum(['jwt', 'opaque']).default('jwt'),
  AUTH_KEY_ROTATION_INTERVAL: rotationInterval.default(30 * 24 * 3600),
  AUTH_KEY_PREPUBLISH: seconds.default(1800),
  AUTH_REGULATION_MAX_RETRIES: z.coerce.number().int().positive().default(5),
  AUTH_REGULATION_FIND_TIME: seconds.default(900),
  AUTH_REGULATION_BAN_TIME: seconds.default(900),
  TRUST_PROXY: bool.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  AUTH_DEV_SEED: bool.optional(),
  APP_ONE_URL: z.url().default('http://localhost:3001'),
  APP_TWO_URL: z.url().default('http://localhost:3002'),

  // Observability
  AUTH_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  AUTH_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
});

function decodeKey(value: string): Buffer {
  const key = Buffer.from(value, 'base64url');
  if (key.length !== 32) throw new ConfigError('AUTH_ENCRYPTION_KEY must be 32 bytes, base64url-encoded (e.g. `openssl rand -base64 32`)');
  return key;
}

/** Reads, validates and freezes the configuration. Throws {@link ConfigError} with one precise message. */
export function loadConfig(env: Record<string, string | undefined>): AuthConfig {
  const e = parseEnv(Env, env);
  const production = e.NODE_ENV === 'production';
  let cookieKeys = e.AUTH_COOKIE_KEYS;
  let encryptionKey = e.AUTH_ENCRYPTION_KEY ? decodeKey(e.AUTH_ENCRYPTION_KEY) : undefined;
  if (production) {
    const missing = [!cookieKeys?.length && 'AUTH_COOKIE_KEYS', !encryptionKey && 'AUTH_ENCRYPTION_KEY'].filter(Boolean);
    if (missing.length) throw new ConfigError(`${missing.join(' and ')} must be set when NODE_ENV=production`);
  }
  if (!cookieKeys?.length || !encryptionKey) {
    const dev = loadDevSecrets(e.AUTH_DATA_DIR);
    cookieKeys = cookieKeys?.length ? cookieKeys : dev.cookieKeys;
    encryptionKey = encryptionKey ?? decodeKey(dev.encryptionKey);
  }
  if (cookieKeys.some((k) => k.length < 32)) throw new ConfigError('AUTH_COOKIE_KEYS: each key must be at least 32 characters');
  const rotation = e.AUTH_KEY_ROTATION_INTERVAL;
  if (rotation !== null && e.AUTH_KEY_PREPUBLISH >= rotation) {
    throw new ConfigError(`invalid setting AUTH_KEY_PREPUBLISH: ${e.AUTH_KEY_PREPUBLISH} s must be shorter than AUTH_KEY_ROTATION_INTERVAL (${rotation} s)`);
  }
  const issuer = e.AUTH_ISSUER.replace(/\/+$/, '');
  const devClients: DevClient[] = [
    { clientId: 'app-one', redirectUri: `${e.APP_ONE_URL.replace(/\/+$/, '')}/callback`, postLogoutRedirectUri: `${e.APP_ONE_URL.replace(/\/+$/, '')}/signed-out` },
    { clientId: 'app-two', redirectUri: `${e.APP_TWO_URL.replace(/\/+$/, '')}/callback`, postLogoutRedirectUri: `${e.APP_TWO_URL.replace(/\/+$/, '')}/signed-out` },
  ];
  return Object.freeze({
    production,
    issuer,
    host: e.AUTH_HOST,
    port: e.AUTH_PORT,
    databaseUrl: e.AUTH_DATABASE_URL,
    migrate: e.AUTH_MIGRATE ?? (production ? 'manual' : 'auto'),
    dataDir: e.AUTH_DATA_DIR,
    cookieKeys: Object.freeze([...cookieKeys]),
    encryptionKey,
    sessionTtl: e.AUTH_SESSION_TTL,
    accessTokenTtl: e.AUTH_ACCESS_TOKEN_TTL,
    idTokenTtl: e.AUTH_ID_TOKEN_TTL,
    refreshTokenTtl: e.AUTH_REFRESH_TOKEN_TTL,
    authorizationCodeTtl: e.AUTH_CODE_TTL,
    interactionTtl: e.AUTH_INTERACTION_TTL,
    api: Object.freeze({
      audience: e.AUTH_API_AUDIENCE,
      scopes: Object.freeze([...(e.AUTH_API_SCOPES ?? DEFAULT_API_SCOPES)]),
      tokenFormat: e.AUTH_API_TOKEN_FORMAT,
    }),
    keys: Object.freeze({ rotationInterval: rotation, prepublish: e.AUTH_KEY_PREPUBLISH }),
    regulation: Object.freeze({
      maxRetries: e.AUTH_REGULATION_MAX_RETRIES,
      findTime: e.AUTH_REGULATION_FIND_TIME,
      banTime: e.AUTH_REGULATION_BAN_TIME,
    }),
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    devSeed: e.AUTH_DEV_SEED ?? !production,
    devClients: Object.freeze(devClients),

    // Observability
    metrics: Object.freeze({ host: e.AUTH_METRICS_HOST, port: e.AUTH_METRICS_PORT }),
  });
}
