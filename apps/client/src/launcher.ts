/**
 * Runs app-one and app-two side by side (one codebase, two registered clients) with one log
 * stream, each line prefixed `[app-one]` / `[app-two]`.
 * Rules:
 * - per app, APP_ONE_* / APP_TWO_* variables become the child's CLIENT_* settings:
 *   `_URL` (public base URL; its port is the listening port), `_CLIENT_SECRET`, `_COOKIE_KEYS`,
 *   `_DATABASE_URL`, `_METRICS_HOST`, `_METRICS_PORT` (each app has its own metrics listener); CLIENT_* variables of the parent are not passed on (except CLIENT_MIGRATE, shared), so the two apps never
 *   share a secret by accident, and neither sees the other's APP_* variables; everything else (AUTH_ISSUER, API_URL, LOG_LEVEL…) is shared;
 * - `--watch` restarts an app when its source changes and formats its JSON log lines (development);
 * - SIGINT/SIGTERM stop both; without --watch, one app exiting stops the other and the launcher
 *   exits with its code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { formatLogLine } from '@gatehouse/devlog';

export interface AppSpec {
  clientId: 'app-one' | 'app-two';
  prefix: string;
  defaultUrl: string;
}

export const APPS: readonly AppSpec[] = [
  { clientId: 'app-one', prefix: 'APP_ONE', defaultUrl: 'http://localhost:3001' },
  { clientId: 'app-two', prefix: 'APP_TWO', defaultUrl: 'http://localhost:3002' },
];

export function childEnv(app: AppSpec, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const shared = Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('CLIENT_') && !/^APP_(ONE|TWO)_/.test(name)));
  const url = new URL(env[`${app.prefix}_URL`] ?? app.defaultUrl);
  const own: Record<string, string | undefined> = {
    CLIENT_ID: app.clientId,
    CLIENT_URL: url.href.replace(/\/+$/, ''),
    CLIENT_PORT: url.port || (url.protocol === 'https:' ? '443' : '80'),
    CLIENT_SECRET: env[`${app.prefix}_CLIENT_SECRET`],
    CLIENT_COOKIE_KEYS: env[`${app.prefix}_COOKIE_KEYS`],
    CLIENT_DATABASE_URL: env[`${app.prefix}_DATABASE_URL`],
    // Shared by both apps: when they migrate their databases (auto, or manual = `migrate` first).
    CLIENT_MIGRATE: env.CLIENT_MIGRATE,
    CLIENT_METRICS_HOST: env[`${app.prefix}_METRICS_HOST`],
    CLIENT_METRICS_PORT: env[`${app.prefix}_METRICS_PORT`],
  };
  for (const [name, value] of Object.entries(own)) if (value === undefined) delete own[name];
  return { ...shared, ...own };
}

function pipe(stream: NodeJS.ReadableStream, out: NodeJS.WriteStream, label: string, format: (line: string) => string): void {
  createInterface({ input: stream }).on('line', (line) => out.write(`${format(line).replace(/^/gm, `${label} `)}\n`));
}

export function launch(options: { watch: boolean }): void {
  const here = import.meta.url;
  const entry = fileURLToPath(new URL(here.endsWith('.ts') ? './main.ts' : './main.js', here));
  const children: ChildProcess[] = [];
  let stopping = false;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    setTimeout(() => process.exit(code), 4000).unref();
    process.exitCode = code;
  };

  for (const app of APPS) {
    const label = `[${app.clientId}]`;
    const args = options.watch ? ['--watch', '--watch-preserve-output', entry] : [entry];
    const child = spawn(process.execPath, args, { env: childEnv(app, process.env), stdio: ['ignore', 'pipe', 'pipe'] });
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
