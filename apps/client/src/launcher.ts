/**
 * Runs app-one and app-two side by side (one codebase, two registered clients) with one log
 * stream, each line prefixed `[app-one]` / `[app-two]`.
 * Rules:
 * - per app, APP_ONE_* / APP_TWO_* variables become the child's CLIENT_* settings:
 *   `_URL` (public base URL; its port is the listening port), `_CLIENT_SECRET`, `_COOKIE_KEYS`,
 *   `_METRICS_HOST`, `_METRICS_PORT` (each app has its own metrics listener), and the secrets'
 *   files `_CLIENT_SECRET_FILE`, `_COOKIE_KEYS_FILE`; CLIENT_* variables of
 *   the parent are not passed on, so the two apps never share a secret by accident, and neither
 *   sees the other's APP_* variables; everything else (AUTH_ISSUER, API_URL, LOG_LEVEL…) is shared;
 * - CLIENT_DATABASE_URL (or CLIENT_DATABASE_URL_FILE), CLIENT_DATABASE_CONNECT_TIMEOUT,
 *   CLIENT_MIGRATE and CLIENT_DATA_DIR are shared by both apps: their rows
 *   carry the client id, so one database serves both; unset, each app keeps its own SQLite file
 *   (`<CLIENT_DATA_DIR>/<client id>.db`), as it keeps its own dev secrets there. The old
 *   APP_ONE_DATABASE_URL / APP_TWO_DATABASE_URL are refused before anything starts;
 * - dev ports and URLs come from DEV_TOPOLOGY; with NODE_ENV=production, APP_ONE_URL and
 *   APP_TWO_URL must be set (no localhost fallback); a CLIENT_*, APP_ONE_* or APP_TWO_* variable
 *   the launcher does not read is refused with the closest name (checkLauncherEnv);
 * - `--watch` restarts an app when its source changes and formats its JSON log lines (development);
 * - SIGINT/SIGTERM stop both; without --watch, one app exiting stops the other and the launcher
 *   exits with its code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { formatLogLine } from '@gatehouse/devlog';
import { ConfigError, ConfigProblems, refuseRenamed, refuseUnknown, trimTrailingSlashes } from '@gatehouse/config';
import { DEV_TOPOLOGY, type DevClientId } from '@gatehouse/contracts';
import { RENAMED_SETTINGS } from './config/renamed-settings.ts';

export interface AppSpec {
  clientId: DevClientId;
  prefix: string;
  defaultUrl: string;
}

export const APPS: readonly AppSpec[] = [
  { clientId: 'app-one', prefix: 'APP_ONE', defaultUrl: DEV_TOPOLOGY['app-one'].url },
  { clientId: 'app-two', prefix: 'APP_TWO', defaultUrl: DEV_TOPOLOGY['app-two'].url },
];

/** The environment of one app. Throws a {@link ConfigError} when a renamed variable is set. */
export function childEnv(app: AppSpec, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  refuseRenamed(env, RENAMED_SETTINGS);
  const shared = Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('CLIENT_') && !/^APP_(ONE|TWO)_/.test(name)));
  const url = new URL(env[`${app.prefix}_URL`] ?? app.defaultUrl);
  const own: Record<string, string | undefined> = {
    CLIENT_ID: app.clientId,
    CLIENT_URL: trimTrailingSlashes(url.href),
    CLIENT_PORT: url.port || (url.protocol === 'https:' ? '443' : '80'),
    CLIENT_SECRET: env[`${app.prefix}_CLIENT_SECRET`],
    CLIENT_COOKIE_KEYS: env[`${app.prefix}_COOKIE_KEYS`],
    CLIENT_SECRET_FILE: env[`${app.prefix}_CLIENT_SECRET_FILE`],
    CLIENT_COOKIE_KEYS_FILE: env[`${app.prefix}_COOKIE_KEYS_FILE`],
    // Shared by both apps: one database can hold both (rows carry the client id), and they
    // migrate it the same way (auto, or manual = `migrate` first).
    CLIENT_DATABASE_URL: env.CLIENT_DATABASE_URL,
    CLIENT_DATABASE_URL_FILE: env.CLIENT_DATABASE_URL_FILE,
    CLIENT_DATABASE_CONNECT_TIMEOUT: env.CLIENT_DATABASE_CONNECT_TIMEOUT,
    CLIENT_MIGRATE: env.CLIENT_MIGRATE,
    CLIENT_DATA_DIR: env.CLIENT_DATA_DIR,
    CLIENT_METRICS_HOST: env[`${app.prefix}_METRICS_HOST`],
    CLIENT_METRICS_PORT: env[`${app.prefix}_METRICS_PORT`],
  };
  for (const [name, value] of Object.entries(own)) if (value === undefined) delete own[name];
  return { ...shared, ...own };
}

/** What each app's APP_ONE_* / APP_TWO_* variables may be called. */
const PER_APP = ['URL', 'CLIENT_SECRET', 'CLIENT_SECRET_FILE', 'COOKIE_KEYS', 'COOKIE_KEYS_FILE', 'METRICS_HOST', 'METRICS_PORT'];
/** The CLIENT_* variables the launcher passes to both apps; any other is not read under it. */
const SHARED_CLIENT = ['CLIENT_DATABASE_URL', 'CLIENT_DATABASE_URL_FILE', 'CLIENT_DATABASE_CONNECT_TIMEOUT', 'CLIENT_MIGRATE', 'CLIENT_DATA_DIR'];

/**
 * Checks the launcher's own variables before starting or checking the apps (the migrate step
 * needs none of them): a CLIENT_*, APP_ONE_* or APP_TWO_* variable the launcher does not read is
 * refused with the closest name it does (it would otherwise be dropped without a word), and
 * production never falls back to the localhost default of an app's public URL. Throws one
 * {@link ConfigError} listing every problem.
 */
export function checkLauncherEnv(env: NodeJS.ProcessEnv, apps: readonly AppSpec[] = APPS): void {
  const problems = new ConfigProblems();
  const known = [...SHARED_CLIENT, ...Object.keys(RENAMED_SETTINGS), ...APPS.flatMap((app) => PER_APP.map((name) => `${app.prefix}_${name}`))];
  refuseUnknown(env, { app: 'the launcher (each app\'s settings are APP_ONE_* / APP_TWO_*)', prefixes: ['CLIENT_', 'APP_ONE_', 'APP_TWO_'], known }, problems);
  if (env.NODE_ENV === 'production') {
    for (const app of apps) {
      if (env[`${app.prefix}_URL`] === undefined) problems.requiredInProduction(`${app.prefix}_URL`, `the public https URL of ${app.clientId}; its /callback is the registered redirect URI`);
    }
  }
  problems.throwIfAny();
}

function pipe(stream: NodeJS.ReadableStream, out: NodeJS.WriteStream, label: string, format: (line: string) => string): void {
  createInterface({ input: stream }).on('line', (line) => out.write(`${format(line).replace(/^/gm, `${label} `)}\n`));
}

export function launch(options: { watch: boolean }): void {
  const here = import.meta.url;
  const entry = fileURLToPath(new URL(here.endsWith('.ts') ? './main.ts' : './main.js', here));
  let envs: NodeJS.ProcessEnv[];
  try {
    checkLauncherEnv(process.env);
    envs = APPS.map((app) => childEnv(app, process.env));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`client: ${error.message}\n`);
    process.exit(1);
  }
  const children: ChildProcess[] = [];
  let stopping = false;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    setTimeout(() => process.exit(code), 4000).unref();
    process.exitCode = code;
  };

  for (const [index, app] of APPS.entries()) {
    const label = `[${app.clientId}]`;
    const args = options.watch ? ['--watch', '--watch-preserve-output', entry] : [entry];
    const child = spawn(process.execPath, args, { env: envs[index], stdio: ['ignore', 'pipe', 'pipe'] });
    // Development shows readable lines; production (`start`) keeps the JSON for log collectors.
    const format = options.watch ? formatLogLine : (line: string) => line;
    pipe(child.stdout!, process.stdout, label, format);
    pipe(child.stderr!, process.stderr, label, format);
    child.on('exit', (code, signal) => {
      process.stderr.write(`${label} exited ${signal ?? `with code ${code}`}\n`);
      if (!options.watch || stopping) stop(code ?? 1);
      if (children.every((c) => c.exitCode !== null || c.signalCode !== null)) process.exit(process.exitCode ?? 0);
    });
    children.push(child);
  }
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
}
