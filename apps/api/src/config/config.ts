/**
 * The resource server's settings, read once from the environment.
 * Rules:
 * - NODE_ENV is development (unset), test or production; any other value is refused with the
 *   mode meant (packages/config node-env.ts), never read as development; the migrate step
 *   refuses it too;
 * - every variable has a development default, except API_INTROSPECTION_CLIENT_SECRET,
 *   whose development default `dev-api-secret` is refused when NODE_ENV=production;
 * - the server listens on loopback (127.0.0.1) unless API_HOST says otherwise;
 * - metrics are served on a separate listener (API_METRICS_HOST/API_METRICS_PORT, loopback
 *   9465 by default), never on the API's port; port 0 binds a free port (tests), like API_PORT;
 * - the issuer is AUTH_ISSUER, the name the other apps use; the old API_ISSUER is refused with a
 *   message naming its new name (never read as an alias);
 * - API_PUBLIC_URL is the origin clients reach the API at; every absolute URL the API writes
 *   (`Location`, `Link`, paging, OpenAPI `servers`, problem `type`) starts with it, never with the
 *   request's Host or X-Forwarded-Host; it must be set when NODE_ENV=production;
 * - API_DPOP_PROOF_WINDOW (seconds, 1 to 300) is how far a DPoP proof's iat may be from now;
 *   a proof's jti is remembered that long (auth/dpop-binding.ts);
 * - with NODE_ENV=production, AUTH_ISSUER and API_AUDIENCE must be set too (their defaults are
 *   localhost);
 * - a variable starting with API_ that this app does not read is refused, with the closest known
 *   name; the client's API_URL and the nginx template's API_SERVER_NAME, API_LISTEN, API_1 and
 *   API_2 are not this app's and are left alone;
 * - API_INTROSPECTION_CLIENT_SECRET and API_DATABASE_URL may be read from `<NAME>_FILE`;
 * - API_DATABASE_CONNECT_TIMEOUT: seconds start-up keeps retrying a database it cannot reach
 *   (0: one attempt);
 * - a bad value fails start-up with a message naming the variable; every problem is reported at
 *   once (one line each), including an unsupported API_DATABASE_URL.
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { AUTH_ROUTES, DEFAULT_API_AUDIENCE, DEV_TOPOLOGY } from '@gatehouse/contracts';
import { bool, checkedString, ConfigError, ConfigProblems, logLevel, parseEnv, port, readNodeEnv, seconds, url } from '@gatehouse/config';
import { databaseUrlProblem, type MigrateMode } from '@gatehouse/db';

export type TokenMode = 'jwt' | 'introspection';

export interface ApiConfig {
  readonly production: boolean;
  readonly host: string;
  readonly port: number;
  readonly databaseUrl: string;
  /** Seconds start-up retries an unreachable database before giving up; 0 tries once. */
  readonly databaseConnectTimeout: number;
  /**
   * The scheme and authority clients reach the API at (no path, no trailing slash): the start of every
   * absolute URL in responses. Never taken from the request (Host, X-Forwarded-Host).
   */
  readonly publicUrl: string;
  /** `auto`: apply pending migrations on start (development default); `manual`: refuse to start until `migrate` ran (production default). */
  readonly migrate: MigrateMode;
  /** Issuer of the authorization server; its discovery document is `${issuer}/.well-known/openid-configuration`. */
  readonly issuer: string;
  /** The audience access tokens must be issued for. */
  readonly audience: string;
  /** `jwt` verifies access tokens locally against the JWKS; `introspection` asks the authorization server (RFC 7662). */
  readonly tokenMode: TokenMode;
  readonly introspectionClient: { readonly clientId: string; readonly clientSecret: string };
  /** Path of the JSON file declaring collections, versions and paging. */
  readonly collectionsFile: string;
  readonly trustProxy: boolean;
  readonly logLevel: string;
  /** Largest request body accepted, bytes. */
  readonly bodyLimit: number;
  /** `realm` of the WWW-Authenticate challenges. */
  readonly realm: string;
  /** Leeway for `exp` and `nbf`, seconds. */
  readonly clockTolerance: number;
  /** How far a DPoP proof's `iat` may be from now, before or after, seconds. */
  readonly dpopProofWindow: number;
  /** Least time between two JWKS refetches triggered by an unknown `kid`, seconds. */
  readonly jwksCooldown: number;
  /** Age after which the JWKS is refetched on the next use, seconds. */
  readonly jwksMaxAge: number;
  /** Most tokens the verified-token cache holds. */
  readonly tokenCacheSize: number;
  /** Longest time an introspection answer is reused, seconds (bounds how late a revocation is noticed). */
  readonly introspectionCacheMaxAge: number;
  /**
   * The authorization server's revocation feed, followed with the introspection credentials;
   * null when API_REVOCATION_FEED=false.
   */
  readonly revocationFeed: null | {
    readonly url: string;
    /** Without contact for this long, revocation status is asked of introspection, seconds. */
    readonly maxStaleness: number;
    /** Most entries the deny-list holds. */
    readonly listSize: number;
  };
  /** Where GET /metrics listens (a listener of its own). Port 0 picks a free port. */
  readonly metrics: { readonly host: string; readonly port: number };
}

export { ConfigError };

export const DEV_INTROSPECTION_SECRET = 'dev-api-secret';
const DEFAULT_COLLECTIONS_FILE = fileURLToPath(new URL('../../collections.json', import.meta.url));

const Env = z.object({
  API_HOST: z.string().min(1).default('127.0.0.1'),
  API_PORT: port.default(DEV_TOPOLOGY.api.port),
  API_DATABASE_URL: checkedString(databaseUrlProblem).default('sqlite:./data/api.db'),
  API_DATABASE_CONNECT_TIMEOUT: seconds.default(30),
  API_MIGRATE: z.enum(['auto', 'manual']).optional(),
  API_PUBLIC_URL: url.refine((v) => /^https?:\/\/[^/?#]+$/.test(v), 'must be an http(s) origin without a path, e.g. https://api.example.com').optional(),
  AUTH_ISSUER: url.default(DEV_TOPOLOGY.auth.url),
  API_AUDIENCE: z.string().min(1).default(DEFAULT_API_AUDIENCE),
  API_TOKEN_MODE: z.enum(['jwt', 'introspection']).default('jwt'),
  API_INTROSPECTION_CLIENT_ID: z.string().min(1).default('api'),
  API_INTROSPECTION_CLIENT_SECRET: z.string().min(1).optional(),
  API_COLLECTIONS_FILE: z.string().min(1).default(DEFAULT_COLLECTIONS_FILE),
  TRUST_PROXY: bool.default(false),
  LOG_LEVEL: logLevel.default('info'),
  API_BODY_LIMIT: z.coerce.number().int().positive().default(1024 * 1024),
  API_REALM: z.string().regex(/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/, 'printable ASCII without quotes or backslashes').default('gatehouse-api'),
  API_CLOCK_TOLERANCE: seconds.max(300).default(30),
  API_DPOP_PROOF_WINDOW: seconds.min(1).max(300).default(60),
  API_JWKS_COOLDOWN: seconds.default(30),
  API_JWKS_MAX_AGE: seconds.default(600),
  API_TOKEN_CACHE_SIZE: z.coerce.number().int().positive().default(10_000),
  API_INTROSPECTION_CACHE_MAX_AGE: seconds.default(60),
  API_REVOCATION_FEED: bool.default(true),
  API_REVOCATION_FEED_URL: z.url().optional(),
  API_REVOCATION_MAX_STALENESS: seconds.min(1).default(15),
  API_REVOCATION_LIST_SIZE: z.coerce.number().int().positive().default(100_000),
  API_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  API_METRICS_PORT: port.default(DEV_TOPOLOGY.api.metricsPort),
});

/** Variables that were renamed: setting the old name fails start-up with the new one. */
const RENAMED = { API_ISSUER: 'AUTH_ISSUER' };

/** The variables that may come from a file (`<NAME>_FILE`): the secret, and the database URL with its password. */
const SECRETS = ['API_INTROSPECTION_CLIENT_SECRET', 'API_DATABASE_URL'];

/** Checked for unknown names: everything under API_ but the client's API_URL and the nginx template's variables. */
const STRICT = {
  app: 'api',
  prefixes: ['API_'],
  foreign: ['API_URL', 'API_SERVER_NAME', 'API_LISTEN', 'API_1', 'API_2'],
  known: [...Object.keys(Env.shape), ...SECRETS.map((name) => `${name}_FILE`)],
};

/** The public names production must be told (their development defaults are localhost). */
const PUBLIC_NAMES = {
  AUTH_ISSUER: "the authorization server's public https URL, its AUTH_ISSUER",
  API_AUDIENCE: "the audience access tokens are issued for, the authorization server's AUTH_API_AUDIENCE",
} as const;

/** The database settings alone, for the migrate step (it needs neither the issuer nor the secret); the rest of the environment is still checked for unknown names. */
export function apiDatabaseSettings(env: Record<string, string | undefined>): { databaseUrl: string } {
  const problems = new ConfigProblems();
  readNodeEnv(env, problems);
  const e = parseEnv(Env.pick({ API_DATABASE_URL: true }), env, { problems, renamed: RENAMED, strict: STRICT, secrets: ['API_DATABASE_URL'] });
  problems.throwIfAny();
  return { databaseUrl: e.API_DATABASE_URL };
}

/** Reads, validates and freezes the configuration. Throws one {@link ConfigError} listing every problem. */
export function loadConfig(env: Record<string, string | undefined>): ApiConfig {
  const problems = new ConfigProblems();
  const production = readNodeEnv(env, problems) === 'production';
  const e = parseEnv(Env, env, { problems, renamed: RENAMED, strict: STRICT, secrets: SECRETS });
  if (production) {
    for (const [name, why] of Object.entries(PUBLIC_NAMES)) if (env[name] === undefined && !problems.has(name)) problems.requiredInProduction(name, why);
  }
  if (production && !e.API_INTROSPECTION_CLIENT_SECRET && !problems.has('API_INTROSPECTION_CLIENT_SECRET')) {
    problems.sentence('API_INTROSPECTION_CLIENT_SECRET', 'API_INTROSPECTION_CLIENT_SECRET must be set when NODE_ENV=production');
  }
  if (production && e.API_INTROSPECTION_CLIENT_SECRET === DEV_INTROSPECTION_SECRET) {
    problems.sentence('API_INTROSPECTION_CLIENT_SECRET', 'API_INTROSPECTION_CLIENT_SECRET must not be the development default when NODE_ENV=production');
  }
  if (production && !e.API_PUBLIC_URL && !problems.has('API_PUBLIC_URL')) {
    problems.sentence('API_PUBLIC_URL', 'API_PUBLIC_URL must be set when NODE_ENV=production (the https origin clients reach the API at)');
  }
  problems.throwIfAny();
  const issuer = e.AUTH_ISSUER;
  return Object.freeze({
    production,
    host: e.API_HOST,
    port: e.API_PORT,
    databaseUrl: e.API_DATABASE_URL,
    databaseConnectTimeout: e.API_DATABASE_CONNECT_TIMEOUT,
    publicUrl: e.API_PUBLIC_URL ?? DEV_TOPOLOGY.api.url,
    migrate: e.API_MIGRATE ?? (production ? 'manual' : 'auto'),
    issuer,
    audience: e.API_AUDIENCE,
    tokenMode: e.API_TOKEN_MODE,
    introspectionClient: Object.freeze({
      clientId: e.API_INTROSPECTION_CLIENT_ID,
      clientSecret: e.API_INTROSPECTION_CLIENT_SECRET ?? DEV_INTROSPECTION_SECRET,
    }),
    collectionsFile: e.API_COLLECTIONS_FILE,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    bodyLimit: e.API_BODY_LIMIT,
    realm: e.API_REALM,
    clockTolerance: e.API_CLOCK_TOLERANCE,
    dpopProofWindow: e.API_DPOP_PROOF_WINDOW,
    jwksCooldown: e.API_JWKS_COOLDOWN,
    jwksMaxAge: e.API_JWKS_MAX_AGE,
    tokenCacheSize: e.API_TOKEN_CACHE_SIZE,
    introspectionCacheMaxAge: e.API_INTROSPECTION_CACHE_MAX_AGE,
    revocationFeed: e.API_REVOCATION_FEED
      ? Object.freeze({
          url: e.API_REVOCATION_FEED_URL ?? `${issuer}${AUTH_ROUTES.revocations}`,
          maxStaleness: e.API_REVOCATION_MAX_STALENESS,
          listSize: e.API_REVOCATION_LIST_SIZE,
        })
      : null,
    metrics: Object.freeze({ host: e.API_METRICS_HOST, port: e.API_METRICS_PORT }),
  });
}
