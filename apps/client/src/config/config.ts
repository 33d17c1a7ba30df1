/**
 * The relying party's settings, read once from the environment.
 * Rules:
 * - NODE_ENV is development (unset), test or production; any other value is refused with the
 *   mode meant (packages/config node-env.ts), never read as development; the migrate step
 *   refuses it too;
 * - every variable has a development default; CLIENT_SECRET defaults to the well-known development
 *   secret of the client id (DEV_DEFAULTS) and CLIENT_COOKIE_KEYS are generated once into
 *   `<CLIENT_DATA_DIR>/<client id>-secrets.json`, both outside production only (at start, never
 *   by `config:check`);
 * - with NODE_ENV=production, CLIENT_SECRET and CLIENT_COOKIE_KEYS must be set, and the
 *   development secrets are refused;
 * - with NODE_ENV=production, the public names AUTH_ISSUER, API_URL and CLIENT_URL must be set
 *   too (their defaults are localhost);
 * - a variable starting with CLIENT_ that this app does not read is refused, with the closest
 *   known name, except CLIENT_BACKCHANNEL_LOGOUT_URL (read by deploy/scripts/register-clients.sh); CLIENT_SECRET, CLIENT_COOKIE_KEYS and CLIENT_DATABASE_URL may be read from
 *   `<NAME>_FILE`;
 * - CLIENT_DATABASE_CONNECT_TIMEOUT: seconds start-up keeps retrying a database it cannot reach
 *   (0: one attempt);
 * - a plain-http issuer is accepted outside production, or for a loopback issuer;
 * - metrics listen on a port of their own (CLIENT_METRICS_HOST/PORT: loopback, 9466 for app-one,
 *   9467 for app-two, 9466 otherwise, like CLIENT_PORT); port 0 binds a free port, as for CLIENT_PORT;
 * - the database is CLIENT_DATABASE_URL (default `sqlite:<CLIENT_DATA_DIR>/<client id>.db`, one
 *   file per app); the launcher's old APP_ONE_DATABASE_URL / APP_TWO_DATABASE_URL are refused
 *   with the new name. Both apps may share one database: every row carries its client id;
 * - a bad value fails start-up with a message naming the variable; every problem is reported at
 *   once (one line each), including an unsupported CLIENT_DATABASE_URL.
 */
import { z } from 'zod';
import { DEV_DEFAULTS, DEV_TOPOLOGY, parseScope } from '@gatehouse/contracts';
import { loadDevSecrets, type ClientDevSecrets } from './dev-secrets.ts';
import { RENAMED_SETTINGS } from './renamed-settings.ts';
import { bool, checkedString, ConfigError, ConfigProblems, list, logLevel, parseEnv, port, readNodeEnv, seconds, trimTrailingSlashes, url } from '@gatehouse/config';
import { databaseUrlProblem, type MigrateMode } from '@gatehouse/db';

export interface ClientConfig {
  readonly production: boolean;
  readonly clientId: string;
  /** Server-side only: never rendered, logged or sent anywhere but the token endpoint. */
  readonly clientSecret: string;
  readonly host: string;
  readonly port: number;
  /** Public base URL of this app, without a trailing slash. */
  readonly publicUrl: string;
  readonly redirectUri: string;
  readonly postLogoutRedirectUri: string;
  readonly issuer: string;
  /** Plain-http requests to the issuer are allowed (loopback or development). */
  readonly allowInsecureIssuer: boolean;
  readonly apiUrl: string;
  readonly databaseUrl: string;
  /** Seconds start-up retries an unreachable database before giving up; 0 tries once. */
  readonly databaseConnectTimeout: number;
  /** `auto`: apply pending migrations on start (development default); `manual`: refuse to start until `migrate` ran (production default). */
  readonly migrate: MigrateMode;
  readonly dataDir: string;
  readonly scopes: readonly string[];
  readonly collection: string;
  /** The text field of an item of the collection the landing page edits. */
  readonly itemField: string;
  /** Keys signing this app's cookies; the first signs, all verify. */
  readonly cookieKeys: readonly string[];
  /** Absolute lifetime of a session, seconds. */
  readonly sessionTtl: number;
  /** Lifetime of a pending login (state, nonce, verifier), seconds. */
  readonly loginTtl: number;
  /** An access token is refreshed this many seconds before it expires. */
  readonly refreshSkew: number;
  /** Seconds between two silent checks (prompt=none) that the SSO session still exists; 0 disables. */
  readonly ssoCheckInterval: number;
  readonly trustProxy: boolean;
  readonly logLevel: string;
  /** Cookie names, all prefixed with the client id so apps sharing a host never clash. */
  readonly cookies: { readonly session: string; readonly login: string };
  /** Where GET /metrics listens: a listener of its own, never the app's port. Port 0 picks a free port. */
  readonly metrics: { readonly host: string; readonly port: number };
}

export { ConfigError };

/** Text field of the collections the default API configuration declares. */
const DEFAULT_ITEM_FIELDS: Record<string, string> = { movies: 'title', customers: 'name', cars: 'model', users: 'username' };


const Env = z.object({
  CLIENT_ID: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, ".", "_" or "-" (at most 64)').default('app-one'),
  CLIENT_SECRET: z.string().min(8).optional(),
  CLIENT_HOST: z.string().min(1).default('127.0.0.1'),
  CLIENT_PORT: port.optional(),
  CLIENT_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  CLIENT_METRICS_PORT: port.optional(),
  CLIENT_URL: url.optional(),
  AUTH_ISSUER: url.default(DEV_TOPOLOGY.auth.url),
  API_URL: url.default(DEV_TOPOLOGY.api.url),
  CLIENT_DATABASE_URL: checkedString(databaseUrlProblem).optional(),
  CLIENT_DATABASE_CONNECT_TIMEOUT: seconds.default(30),
  CLIENT_MIGRATE: z.enum(['auto', 'manual']).optional(),
  CLIENT_DATA_DIR: z.string().min(1).default('./data'),
  CLIENT_SCOPES: z.string().default('openid profile email movies:read movies:write'),
  CLIENT_COLLECTION: z.string().regex(/^[a-z][a-z0-9_-]*$/, 'a lower-case collection name').default('movies'),
  CLIENT_ITEM_FIELD: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
  CLIENT_COOKIE_KEYS: list.optional(),
  CLIENT_SESSION_TTL: seconds.min(60).default(4 * 3600),
  CLIENT_LOGIN_TTL: seconds.min(30).default(600),
  CLIENT_REFRESH_SKEW: seconds.default(30),
  CLIENT_SSO_CHECK_INTERVAL: seconds.default(60),
  TRUST_PROXY: bool.default(false),
  LOG_LEVEL: logLevel.default('info'),
});

/** The variables that may come from a file (`<NAME>_FILE`): secrets, and the database URL with its password. */
const SECRETS = ['CLIENT_SECRET', 'CLIENT_COOKIE_KEYS', 'CLIENT_DATABASE_URL'];

/** Checked for unknown names: everything under CLIENT_, but for deploy/scripts/register-clients.sh's CLIENT_BACKCHANNEL_LOGOUT_URL. */
const STRICT = {
  app: 'client',
  prefixes: ['CLIENT_'],
  known: [...Object.keys(Env.shape), ...SECRETS.map((name) => `${name}_FILE`)],
  foreign: ['CLIENT_BACKCHANNEL_LOGOUT_URL'],
};

/** The public names production must be told (their development defaults are localhost). */
const PUBLIC_NAMES = {
  AUTH_ISSUER: "the authorization server's public https URL, its AUTH_ISSUER",
  API_URL: "the API's public URL, its API_PUBLIC_URL",
  CLIENT_URL: 'the public https URL of this app; its /callback is the registered redirect URI',
} as const;

function isLoopback(url: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

const databaseUrlOf = (databaseUrl: string | undefined, dataDir: string, clientId: string): string =>
  databaseUrl ?? `sqlite:${trimTrailingSlashes(dataDir)}/${clientId}.db`;

/** The dev topology entry of a client id; an id that is neither dev app takes app-one's ports. */
const devApp = (clientId: string) => (clientId === 'app-two' ? DEV_TOPOLOGY['app-two'] : DEV_TOPOLOGY['app-one']);

/** The database of one app, from the same variables as {@link loadConfig}, without its secrets (for `migrate`). */
export function clientDatabaseUrl(env: Record<string, string | undefined>): string {
  const problems = new ConfigProblems();
  readNodeEnv(env, problems);
  const e = parseEnv(Env.pick({ CLIENT_ID: true, CLIENT_DATABASE_URL: true, CLIENT_DATA_DIR: true }), env, {
    problems,
    renamed: RENAMED_SETTINGS,
    strict: STRICT,
    secrets: ['CLIENT_DATABASE_URL'],
  });
  problems.throwIfAny();
  return databaseUrlOf(e.CLIENT_DATABASE_URL, e.CLIENT_DATA_DIR, e.CLIENT_ID);
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /**
   * The development cookie keys of one app (dev-secrets.ts): start-up loads or creates
   * `<client id>-secrets.json`; the checks pass `previewDevSecrets`, which writes nothing.
   */
  readonly devSecrets?: (dataDir: string, clientId: string) => ClientDevSecrets;
}

/** Reads, validates and freezes the configuration. Throws one {@link ConfigError} listing every problem. */
export function loadConfig(env: Record<string, string | undefined>, options: LoadConfigOptions = {}): ClientConfig {
  const problems = new ConfigProblems();
  const production = readNodeEnv(env, problems) === 'production';
  const e = parseEnv(Env, env, { problems, renamed: RENAMED_SETTINGS, strict: STRICT, secrets: SECRETS });
  const clientId = e.CLIENT_ID;
  const devSecret = (DEV_DEFAULTS.clientSecrets as Record<string, string>)[clientId];

  if (production) {
    for (const [name, why] of Object.entries(PUBLIC_NAMES)) if (env[name] === undefined && !problems.has(name)) problems.requiredInProduction(name, why);
    const missing = [!e.CLIENT_SECRET && 'CLIENT_SECRET', !e.CLIENT_COOKIE_KEYS?.length && 'CLIENT_COOKIE_KEYS'].filter((name): name is string => name !== false && !problems.has(name));
    if (missing.length) problems.sentence(missing[0]!, `${missing.join(' and ')} must be set when NODE_ENV=production`);
    if (Object.values(DEV_DEFAULTS.clientSecrets).includes(e.CLIENT_SECRET as never)) {
      problems.sentence('CLIENT_SECRET', 'CLIENT_SECRET must not be a development default when NODE_ENV=production');
    }
  }
  const clientSecret = e.CLIENT_SECRET ?? devSecret;
  if (!clientSecret && !problems.has('CLIENT_SECRET') && !problems.has('CLIENT_ID')) {
    problems.sentence('CLIENT_SECRET', `CLIENT_SECRET must be set: there is no development default for client "${clientId}"`);
  }

  let cookieKeys = e.CLIENT_COOKIE_KEYS;
  // Keys are generated only for a configuration that will start, never beside a refused one.
  if (!cookieKeys?.length && !production && !problems.size) cookieKeys = (options.devSecrets ?? loadDevSecrets)(e.CLIENT_DATA_DIR, clientId).cookieKeys;
  if (cookieKeys?.some((k) => k.length < 32)) problems.sentence('CLIENT_COOKIE_KEYS', 'CLIENT_COOKIE_KEYS: each key must be at least 32 characters');

  const issuerUrl = new URL(e.AUTH_ISSUER);
  const allowInsecureIssuer = issuerUrl.protocol === 'http:' && (!production || isLoopback(issuerUrl));
  if (issuerUrl.protocol === 'http:' && !allowInsecureIssuer && !problems.has('AUTH_ISSUER')) {
    problems.sentence('AUTH_ISSUER', 'AUTH_ISSUER must be https when NODE_ENV=production (plain http is allowed for a loopback issuer only)');
  }

  const port = e.CLIENT_PORT ?? devApp(clientId).port;
  const publicUrl = e.CLIENT_URL ?? `http://localhost:${port}`;
  const scopes = parseScope(e.CLIENT_SCOPES);
  if (!scopes.includes('openid')) problems.invalid('CLIENT_SCOPES', 'must include openid');
  const itemField = e.CLIENT_ITEM_FIELD ?? DEFAULT_ITEM_FIELDS[e.CLIENT_COLLECTION] ?? 'name';
  problems.throwIfAny();

  return Object.freeze({
    production,
    clientId,
    clientSecret: clientSecret!,
    host: e.CLIENT_HOST,
    port,
    publicUrl,
    redirectUri: `${publicUrl}/callback`,
    postLogoutRedirectUri: `${publicUrl}/signed-out`,
    issuer: e.AUTH_ISSUER,
    allowInsecureIssuer,
    apiUrl: e.API_URL,
    databaseUrl: databaseUrlOf(e.CLIENT_DATABASE_URL, e.CLIENT_DATA_DIR, clientId),
    databaseConnectTimeout: e.CLIENT_DATABASE_CONNECT_TIMEOUT,
    migrate: e.CLIENT_MIGRATE ?? (production ? 'manual' : 'auto'),
    dataDir: e.CLIENT_DATA_DIR,
    scopes: Object.freeze(scopes),
    collection: e.CLIENT_COLLECTION,
    itemField,
    cookieKeys: Object.freeze([...cookieKeys!]),
    sessionTtl: e.CLIENT_SESSION_TTL,
    loginTtl: e.CLIENT_LOGIN_TTL,
    refreshSkew: e.CLIENT_REFRESH_SKEW,
    ssoCheckInterval: e.CLIENT_SSO_CHECK_INTERVAL,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    cookies: Object.freeze({ session: `${clientId}.sid`, login: `${clientId}.login` }),
    metrics: Object.freeze({ host: e.CLIENT_METRICS_HOST, port: e.CLIENT_METRICS_PORT ?? devApp(clientId).metricsPort }),
  });
}
