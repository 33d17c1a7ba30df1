/**
 * The authorization server's settings, read once from the environment.
 * Rules:
 * - NODE_ENV is development (unset), test or production; any other value is refused with the
 *   mode meant (packages/config node-env.ts), never read as development;
 * - every variable has a development default, except the secrets, which are generated
 *   once into `<dataDir>/auth-secrets.json` outside production (at start, never by
 *   `config check`);
 * - the at-rest keyring is AUTH_ENCRYPTION_KEYS (comma-separated; the first key seals, every key
 *   opens) or AUTH_ENCRYPTION_KEY (a ring of one); setting both is refused;
 * - with NODE_ENV=production, AUTH_COOKIE_KEYS and AUTH_ENCRYPTION_KEY(S) must be set, and so must
 *   the public names AUTH_ISSUER and AUTH_API_AUDIENCE (their defaults are localhost);
 *   AUTH_DEV_SEED=true is refused (a demo user without a second factor, public client secrets),
 *   and so is AUTH_TEST_CLOCK=true (anyone could move the server's time);
 * - a variable starting with AUTH_ that this app does not read is refused, with the closest
 *   known name (packages/config unknown-variables.ts); the nginx template's AUTH_SERVER_NAME,
 *   AUTH_LISTEN, AUTH_1 and AUTH_2 are not this app's and are left alone;
 * - every secret (SECRETS below) may be read from the file `<NAME>_FILE` names;
 * - AUTH_DATABASE_CONNECT_TIMEOUT: seconds start-up keeps retrying a database it cannot reach
 *   (0: one attempt);
 * - metrics listen on a port of their own (AUTH_METRICS_HOST/PORT, loopback 9464 by default);
 *   port 0 binds a free port, as for AUTH_PORT;
 * - a bad value fails start-up with a message naming the variable; every problem is reported at
 *   once (one line each), including an unsupported AUTH_DATABASE_URL;
 * - AUTH_KEY_ROTATION_INTERVAL is seconds, or `0` / `off` for manual rotation only;
 *   AUTH_KEY_PREPUBLISH must be shorter than it (a new key has to start signing before the next
 *   one is due). It must also be longer than the resource servers' JWKS cache (the API's
 *   API_JWKS_MAX_AGE, 600 s by default): that is the operator's duty, this app cannot see it.
 * - brute-force regulation (regulation/regulator.ts): AUTH_REGULATION_DELAY_AFTER must not exceed
 *   AUTH_REGULATION_MAX_RETRIES (equal: no delay, only the lock), AUTH_REGULATION_DELAY must not
 *   exceed AUTH_REGULATION_MAX_DELAY, and AUTH_REGULATION_MAX_DELAY must be shorter than
 *   AUTH_REGULATION_FIND_TIME (a wait outlasting the window would forget the failures it follows).
 * - AUTH_AUDIT_RETENTION_DAYS: whole days (1..36500, default 365) the stored audit trail keeps an event.
 * - mail (mail/): AUTH_SMTP_URL is `smtp://[user:password@]host[:port]` (STARTTLS required) or
 *   `smtps://…` (TLS from the start); `?tls=off` on an smtp:// URL sends without TLS (a relay on the
 *   same host) and is the only query accepted; the URL may hold a password, so it may come from
 *   AUTH_SMTP_URL_FILE and is never logged. AUTH_MAIL_FROM is the From address (`Name <a@b>` or
 *   `a@b`), required with AUTH_SMTP_URL in production. Without AUTH_SMTP_URL, development and test
 *   keep mail in the development outbox; production sends none and hides self-service recovery.
 */
import { z } from 'zod';
import { DEFAULT_API_AUDIENCE, DEFAULT_API_SCOPES, DEV_TOPOLOGY, type DevClientId } from '@gatehouse/contracts';
import { bool, checkedString, ConfigError, ConfigProblems, list, logLevel, parseEnv, port, readNodeEnv, seconds, url } from '@gatehouse/config';
import { databaseUrlProblem, type MigrateMode } from '@gatehouse/db';
import type { RegulationRule } from '../regulation/regulator.ts';
import { loadDevSecrets, type DevSecrets } from './dev-secrets.ts';

export interface DevClient {
  readonly clientId: DevClientId;
  readonly redirectUri: string;
  readonly postLogoutRedirectUri: string;
  /** Where the app takes back-channel logout tokens (its CLIENT_ROUTES.backchannelLogout). */
  readonly backchannelLogoutUri: string;
}

export interface AuthConfig {
  readonly production: boolean;
  readonly issuer: string;
  readonly host: string;
  readonly port: number;
  readonly databaseUrl: string;
  /** Seconds start-up retries an unreachable database before giving up; 0 tries once. */
  readonly databaseConnectTimeout: number;
  /** `auto`: apply pending migrations on start (development default); `manual`: refuse to start until `authctl db migrate` ran (production default). */
  readonly migrate: MigrateMode;
  readonly dataDir: string;
  /** Keys signing the session and interaction cookies; the first signs, all verify. */
  readonly cookieKeys: readonly string[];
  /** The 32-byte AES-256-GCM key that seals secrets at rest (TOTP secrets, private keys, client secrets): the keyring's first. */
  readonly encryptionKey: Buffer;
  /** The keyring (AUTH_ENCRYPTION_KEYS, or AUTH_ENCRYPTION_KEY alone): the first key seals, every key opens (crypto/secret-box.ts). */
  readonly encryptionKeys: readonly Buffer[];
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
    /**
     * The client the API authenticates as at introspection (its API_INTROSPECTION_CLIENT_ID): it
     * may introspect the tokens whose audience is the API, besides its own (oidc/token-policies.ts).
     */
    readonly clientId: string;
  };
  readonly keys: {
    /** Seconds between automatic signing-key rotations; null rotates only by hand (`authctl keys rotate`). */
    readonly rotationInterval: number | null;
    /** Seconds a new key is published in the JWKS before it starts signing. */
    readonly prepublish: number;
  };
  /** Brute-force regulation (regulation/regulator.ts); times in seconds. */
  readonly regulation: {
    /** Per account, per known device and per account's second factor. */
    readonly account: RegulationRule;
    /** Per client IP: a lock only, with a budget of its own. */
    readonly ip: RegulationRule;
    /** Seconds a browser stays a known device after a completed sign-in. */
    readonly knownDeviceTtl: number;
  };
  /** The stored audit trail (audit/). */
  readonly audit: {
    /** Days an audit event is kept; older events are purged. */
    readonly retentionDays: number;
  };
  readonly adminConsole: {
    /** Seconds a sign-in (its second factor) counts for the admin console; older ones sign in again (AUTH_ADMIN_CONSOLE_MAX_AGE). */
    readonly maxAge: number;
  };
  readonly account: {
    /** Seconds a sign-in counts for security changes on the account page; older ones sign in again (AUTH_ACCOUNT_REAUTH_MAX_AGE). */
    readonly reauthMaxAge: number;
  };
  /** How mail goes out (password recovery, e-mail verification). */
  readonly mail: MailSettings;
  readonly trustProxy: boolean;
  readonly logLevel: string;
  /** Register the dev clients and the demo user at start (never in production unless asked). */
  readonly devSeed: boolean;
  /** The clock whole-stack tests move over HTTP (dev/test-clock.ts); never in production. */
  readonly testClock: boolean;
  readonly devClients: readonly DevClient[];

  // Observability
  /** Where GET /metrics listens: a listener of its own, never the issuer's port. Port 0 picks a free port. */
  readonly metrics: { readonly host: string; readonly port: number };
}

/** How mail goes out (mail/create-mailer.ts). */
export type MailSettings =
  | { readonly transport: 'smtp'; readonly url: string; readonly from: string; readonly tls: 'implicit' | 'starttls' | 'off' }
  | { readonly transport: 'outbox'; readonly from: string }
  | { readonly transport: 'none' };

export { ConfigError };

const DEV_MAIL_FROM = 'Gatehouse <no-reply@localhost>';

/** Why an AUTH_SMTP_URL is refused, or undefined. */
function smtpUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'expected smtp://[user:password@]host[:port] or smtps://…';
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return 'expected an smtp:// (STARTTLS) or smtps:// (TLS) URL';
  if (!url.hostname) return 'the URL names no host';
  const query = [...url.searchParams.keys()];
  if (query.some((key) => key !== 'tls') || (query.length && url.searchParams.get('tls') !== 'off')) return 'the only query accepted is ?tls=off (no TLS, for a relay on the same host)';
  if (url.protocol === 'smtps:' && query.length) return '?tls=off contradicts smtps://';
  if (url.pathname && url.pathname !== '/') return 'the URL must have no path';
  return undefined;
}

const MAIL_FROM = /^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/;

const rotationInterval = z
  .string()
  .regex(/^(off|\d+)$/, 'expected a number of seconds, or 0 / off for manual rotation only')
  .transform((v) => (v === 'off' || Number(v) === 0 ? null : Number(v)));

const Env = z.object({
  AUTH_ISSUER: url.default(DEV_TOPOLOGY.auth.url),
  AUTH_HOST: z.string().default('127.0.0.1'),
  AUTH_PORT: port.default(DEV_TOPOLOGY.auth.port),
  AUTH_DATABASE_URL: checkedString(databaseUrlProblem).default('sqlite:./data/auth.db'),
  AUTH_DATABASE_CONNECT_TIMEOUT: seconds.default(30),
  AUTH_MIGRATE: z.enum(['auto', 'manual']).optional(),
  AUTH_DATA_DIR: z.string().default('./data'),
  AUTH_COOKIE_KEYS: list.optional(),
  AUTH_ENCRYPTION_KEY: z.string().optional(),
  AUTH_ENCRYPTION_KEYS: list.optional(),
  AUTH_SESSION_TTL: seconds.positive().default(4 * 3600),
  AUTH_ACCESS_TOKEN_TTL: seconds.positive().default(3600),
  AUTH_ID_TOKEN_TTL: seconds.positive().default(3600),
  AUTH_REFRESH_TOKEN_TTL: seconds.positive().default(14 * 24 * 3600),
  AUTH_CODE_TTL: seconds.positive().default(60),
  AUTH_INTERACTION_TTL: seconds.positive().default(600),
  AUTH_API_AUDIENCE: z.string().min(1).default(DEFAULT_API_AUDIENCE),
  AUTH_API_SCOPES: list.optional(),
  AUTH_API_TOKEN_FORMAT: z.enum(['jwt', 'opaque']).default('jwt'),
  AUTH_API_CLIENT_ID: z.string().min(1).default('api'),
  AUTH_KEY_ROTATION_INTERVAL: rotationInterval.default(30 * 24 * 3600),
  AUTH_KEY_PREPUBLISH: seconds.positive().default(1800),
  AUTH_REGULATION_MAX_RETRIES: z.coerce.number().int().positive().default(30),
  AUTH_REGULATION_DELAY_AFTER: z.coerce.number().int().positive().default(5),
  AUTH_REGULATION_DELAY: seconds.positive().default(30),
  AUTH_REGULATION_MAX_DELAY: seconds.positive().default(900),
  AUTH_REGULATION_FIND_TIME: seconds.positive().default(86400),
  AUTH_REGULATION_BAN_TIME: seconds.positive().default(3600),
  AUTH_REGULATION_IP_MAX_RETRIES: z.coerce.number().int().positive().default(100),
  AUTH_REGULATION_IP_FIND_TIME: seconds.positive().default(900),
  AUTH_REGULATION_KNOWN_DEVICE_TTL: seconds.positive().default(30 * 24 * 3600),
  AUTH_AUDIT_RETENTION_DAYS: z.coerce.number().int().positive().max(36_500).default(365),
  // The admin console (/admin): how old the sign-in (its second factor) may be, seconds.
  AUTH_ADMIN_CONSOLE_MAX_AGE: seconds.positive().max(86_400).default(600),
  // The account page: how old the sign-in may be for a security change (factors, recovery codes, e-mail), seconds.
  AUTH_ACCOUNT_REAUTH_MAX_AGE: seconds.positive().max(86_400).default(600),
  AUTH_SMTP_URL: checkedString(smtpUrlProblem).optional(),
  AUTH_MAIL_FROM: z.string().regex(MAIL_FROM, 'expected an address, e.g. Gatehouse <no-reply@example.com> or no-reply@example.com').optional(),
  TRUST_PROXY: bool.default(false),
  LOG_LEVEL: logLevel.default('info'),
  AUTH_DEV_SEED: bool.optional(),
  AUTH_TEST_CLOCK: bool.default(false),
  APP_ONE_URL: url.default(DEV_TOPOLOGY['app-one'].url),
  APP_TWO_URL: url.default(DEV_TOPOLOGY['app-two'].url),

  // Observability
  AUTH_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  AUTH_METRICS_PORT: port.default(DEV_TOPOLOGY.auth.metricsPort),
});

/** The variables that may come from a file (`<NAME>_FILE`): secrets, and the database URL with its password. */
const SECRETS = ['AUTH_COOKIE_KEYS', 'AUTH_ENCRYPTION_KEY', 'AUTH_ENCRYPTION_KEYS', 'AUTH_DATABASE_URL', 'AUTH_SMTP_URL'];

/** Checked for unknown names: everything under AUTH_ but the nginx template's variables (deploy/nginx). */
const STRICT = { app: 'auth', prefixes: ['AUTH_'], foreign: ['AUTH_SERVER_NAME', 'AUTH_LISTEN', 'AUTH_1', 'AUTH_2'] };

/** The public names production must be told (their development defaults are localhost). */
const PUBLIC_NAMES = {
  AUTH_ISSUER: 'the public https URL of this server, e.g. https://id.example.com',
  AUTH_API_AUDIENCE: "the resource server's audience, the same as the API's API_AUDIENCE",
} as const;

/** The one recipe for every secret, as deploy/scripts/generate-secrets.sh runs it. */
const SECRET_RECIPE = "`openssl rand -base64 32 | tr '+/' '-_' | tr -d '='`";

const ENCRYPTION_KEY_RULE = `AUTH_ENCRYPTION_KEY must be 32 bytes, base64url-encoded (${SECRET_RECIPE}); AUTH_ENCRYPTION_KEYS, the keyring, is the name to use`;

function decodeKey(value: string): Buffer | undefined {
  const key = Buffer.from(value, 'base64url');
  return key.length === 32 ? key : undefined;
}

/**
 * The keyring the environment sets: AUTH_ENCRYPTION_KEYS (comma-separated, the first seals), or
 * AUTH_ENCRYPTION_KEY as a ring of one; both at once is refused (which one would seal?), and so
 * is a key twice. Undefined when neither is set or a problem was found.
 */
function encryptionKeyring(e: { AUTH_ENCRYPTION_KEY?: string | undefined; AUTH_ENCRYPTION_KEYS?: string[] | undefined }, problems: ConfigProblems): Buffer[] | undefined {
  if (e.AUTH_ENCRYPTION_KEY !== undefined && e.AUTH_ENCRYPTION_KEYS !== undefined) {
    problems.sentence('AUTH_ENCRYPTION_KEYS', 'AUTH_ENCRYPTION_KEY and AUTH_ENCRYPTION_KEYS are both set: set only AUTH_ENCRYPTION_KEYS (the new key first, then the old ones)');
    return undefined;
  }
  if (e.AUTH_ENCRYPTION_KEYS !== undefined) {
    const keys = e.AUTH_ENCRYPTION_KEYS.map(decodeKey);
    const bad = keys.flatMap((key, i) => (key ? [] : [i + 1]));
    if (e.AUTH_ENCRYPTION_KEYS.length === 0 || bad.length) {
      problems.sentence('AUTH_ENCRYPTION_KEYS', `AUTH_ENCRYPTION_KEYS: each key must be 32 bytes, base64url-encoded (${SECRET_RECIPE}), comma-separated${bad.length ? `; key ${bad.join(', ')} is not` : ''}`);
      return undefined;
    }
    const ring = keys as Buffer[];
    if (new Set(ring.map((key) => key.toString('hex'))).size !== ring.length) {
      problems.sentence('AUTH_ENCRYPTION_KEYS', 'AUTH_ENCRYPTION_KEYS: a key is listed twice');
      return undefined;
    }
    return ring;
  }
  if (e.AUTH_ENCRYPTION_KEY === undefined || e.AUTH_ENCRYPTION_KEY === '') return undefined;
  const key = decodeKey(e.AUTH_ENCRYPTION_KEY);
  if (!key) problems.sentence('AUTH_ENCRYPTION_KEY', ENCRYPTION_KEY_RULE);
  return key ? [key] : undefined;
}

/** The regulation settings that make no sense together (each checked only when its parts parsed). */
function regulationProblems(e: z.infer<typeof Env>, problems: ConfigProblems): void {
  const parsed = (...names: string[]) => names.every((name) => !problems.has(name));
  if (parsed('AUTH_REGULATION_DELAY_AFTER', 'AUTH_REGULATION_MAX_RETRIES') && e.AUTH_REGULATION_DELAY_AFTER > e.AUTH_REGULATION_MAX_RETRIES) {
    problems.invalid('AUTH_REGULATION_DELAY_AFTER', `${e.AUTH_REGULATION_DELAY_AFTER} must not exceed AUTH_REGULATION_MAX_RETRIES (${e.AUTH_REGULATION_MAX_RETRIES}); set them equal for a lock without delays`);
  }
  if (parsed('AUTH_REGULATION_DELAY', 'AUTH_REGULATION_MAX_DELAY') && e.AUTH_REGULATION_DELAY > e.AUTH_REGULATION_MAX_DELAY) {
    problems.invalid('AUTH_REGULATION_DELAY', `${e.AUTH_REGULATION_DELAY} s must not exceed AUTH_REGULATION_MAX_DELAY (${e.AUTH_REGULATION_MAX_DELAY} s)`);
  }
  if (parsed('AUTH_REGULATION_MAX_DELAY', 'AUTH_REGULATION_FIND_TIME') && e.AUTH_REGULATION_MAX_DELAY >= e.AUTH_REGULATION_FIND_TIME) {
    problems.invalid('AUTH_REGULATION_MAX_DELAY', `${e.AUTH_REGULATION_MAX_DELAY} s must be shorter than AUTH_REGULATION_FIND_TIME (${e.AUTH_REGULATION_FIND_TIME} s)`);
  }
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /**
   * The development secrets of a data directory (dev-secrets.ts): start-up loads or creates
   * `auth-secrets.json`; `config check` passes `previewDevSecrets`, which writes nothing.
   */
  readonly devSecrets?: (dataDir: string) => DevSecrets;
}

/** Reads, validates and freezes the configuration. Throws one {@link ConfigError} listing every problem. */
export function loadConfig(env: Record<string, string | undefined>, options: LoadConfigOptions = {}): AuthConfig {
  const problems = new ConfigProblems();
  const production = readNodeEnv(env, problems) === 'production';
  const e = parseEnv(Env, env, { problems, strict: STRICT, secrets: SECRETS });
  if (production) {
    for (const [name, why] of Object.entries(PUBLIC_NAMES)) if (env[name] === undefined && !problems.has(name)) problems.requiredInProduction(name, why);
    if (e.AUTH_DEV_SEED) {
      problems.sentence('AUTH_DEV_SEED', 'AUTH_DEV_SEED must not be true when NODE_ENV=production: it creates the demo user and registers the development clients with their public secrets');
    }
    if (e.AUTH_TEST_CLOCK) problems.sentence('AUTH_TEST_CLOCK', 'AUTH_TEST_CLOCK must not be true when NODE_ENV=production: it lets any client move the server\'s clock');
  }
  let cookieKeys = e.AUTH_COOKIE_KEYS;
  let encryptionKeys = encryptionKeyring(e, problems);
  const keyringSet = e.AUTH_ENCRYPTION_KEY || e.AUTH_ENCRYPTION_KEYS !== undefined;
  if (production) {
    // A keyring refused under either name (a bad AUTH_ENCRYPTION_KEY_FILE…) is not also "missing".
    const keyringRefused = problems.has('AUTH_ENCRYPTION_KEYS') || problems.has('AUTH_ENCRYPTION_KEY');
    const missing = [!cookieKeys?.length && !problems.has('AUTH_COOKIE_KEYS') && 'AUTH_COOKIE_KEYS', !keyringSet && !keyringRefused && 'AUTH_ENCRYPTION_KEYS'].filter((name): name is string => name !== false);
    if (missing.length) problems.sentence(missing[0]!, `${missing.join(' and ')} must be set when NODE_ENV=production (each: ${SECRET_RECIPE})`);
  } else if (!problems.size && (!cookieKeys?.length || !encryptionKeys)) {
    // Secrets are generated only for a configuration that will start, never beside a refused one.
    const dev = (options.devSecrets ?? loadDevSecrets)(e.AUTH_DATA_DIR);
    cookieKeys = cookieKeys?.length ? cookieKeys : dev.cookieKeys;
    const devKey = decodeKey(dev.encryptionKey);
    encryptionKeys ??= devKey ? [devKey] : undefined;
    if (!encryptionKeys) problems.sentence('AUTH_ENCRYPTION_KEYS', `the encryption key generated in ${e.AUTH_DATA_DIR} is not 32 bytes, base64url-encoded: set AUTH_ENCRYPTION_KEYS (${SECRET_RECIPE})`);
  }
  if (cookieKeys?.some((k) => k.length < 32)) problems.sentence('AUTH_COOKIE_KEYS', 'AUTH_COOKIE_KEYS: each key must be at least 32 characters');
  const rotation = e.AUTH_KEY_ROTATION_INTERVAL;
  if (rotation !== null && e.AUTH_KEY_PREPUBLISH >= rotation && !problems.has('AUTH_KEY_PREPUBLISH') && !problems.has('AUTH_KEY_ROTATION_INTERVAL')) {
    problems.invalid('AUTH_KEY_PREPUBLISH', `${e.AUTH_KEY_PREPUBLISH} s must be shorter than AUTH_KEY_ROTATION_INTERVAL (${rotation} s)`);
  }
  regulationProblems(e, problems);
  if (production && e.AUTH_SMTP_URL !== undefined && e.AUTH_MAIL_FROM === undefined && !problems.has('AUTH_MAIL_FROM')) {
    problems.requiredInProduction('AUTH_MAIL_FROM', 'the From address of the mail Gatehouse sends, e.g. Gatehouse <no-reply@example.com>');
  }
  problems.throwIfAny();
  const urls: Record<DevClientId, string> = { 'app-one': e.APP_ONE_URL, 'app-two': e.APP_TWO_URL };
  const devClients = (Object.entries(urls) as [DevClientId, string][]).map(([clientId, base]) => ({
    clientId,
    redirectUri: `${base}/callback`,
    postLogoutRedirectUri: `${base}/signed-out`,
    backchannelLogoutUri: `${base}/backchannel-logout`,
  }));
  return Object.freeze({
    production,
    issuer: e.AUTH_ISSUER,
    host: e.AUTH_HOST,
    port: e.AUTH_PORT,
    databaseUrl: e.AUTH_DATABASE_URL,
    databaseConnectTimeout: e.AUTH_DATABASE_CONNECT_TIMEOUT,
    migrate: e.AUTH_MIGRATE ?? (production ? 'manual' : 'auto'),
    dataDir: e.AUTH_DATA_DIR,
    cookieKeys: Object.freeze([...cookieKeys!]),
    encryptionKey: encryptionKeys![0]!,
    encryptionKeys: Object.freeze([...encryptionKeys!]),
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
      clientId: e.AUTH_API_CLIENT_ID,
    }),
    keys: Object.freeze({ rotationInterval: rotation, prepublish: e.AUTH_KEY_PREPUBLISH }),
    regulation: Object.freeze({
      account: Object.freeze({
        delayAfter: e.AUTH_REGULATION_DELAY_AFTER,
        delay: e.AUTH_REGULATION_DELAY,
        maxDelay: e.AUTH_REGULATION_MAX_DELAY,
        lockAfter: e.AUTH_REGULATION_MAX_RETRIES,
        findTime: e.AUTH_REGULATION_FIND_TIME,
        banTime: e.AUTH_REGULATION_BAN_TIME,
      }),
      ip: Object.freeze({
        delayAfter: e.AUTH_REGULATION_IP_MAX_RETRIES,
        delay: 0,
        maxDelay: 0,
        lockAfter: e.AUTH_REGULATION_IP_MAX_RETRIES,
        findTime: e.AUTH_REGULATION_IP_FIND_TIME,
        banTime: e.AUTH_REGULATION_BAN_TIME,
      }),
      knownDeviceTtl: e.AUTH_REGULATION_KNOWN_DEVICE_TTL,
    }),
    audit: Object.freeze({ retentionDays: e.AUTH_AUDIT_RETENTION_DAYS }),
    adminConsole: Object.freeze({ maxAge: e.AUTH_ADMIN_CONSOLE_MAX_AGE }),
    account: Object.freeze({ reauthMaxAge: e.AUTH_ACCOUNT_REAUTH_MAX_AGE }),
    mail: mailSettings(e, production),
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    devSeed: e.AUTH_DEV_SEED ?? !production,
    testClock: e.AUTH_TEST_CLOCK,
    devClients: Object.freeze(devClients),

    // Observability
    metrics: Object.freeze({ host: e.AUTH_METRICS_HOST, port: e.AUTH_METRICS_PORT }),
  });
}

function mailSettings(e: { AUTH_SMTP_URL?: string | undefined; AUTH_MAIL_FROM?: string | undefined }, production: boolean): MailSettings {
  const from = e.AUTH_MAIL_FROM ?? DEV_MAIL_FROM;
  if (e.AUTH_SMTP_URL !== undefined) {
    const url = new URL(e.AUTH_SMTP_URL);
    const tls = url.protocol === 'smtps:' ? 'implicit' : url.searchParams.get('tls') === 'off' ? 'off' : 'starttls';
    return Object.freeze({ transport: 'smtp', url: e.AUTH_SMTP_URL, from, tls });
  }
  return production ? Object.freeze({ transport: 'none' }) : Object.freeze({ transport: 'outbox', from });
}
