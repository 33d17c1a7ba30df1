/**
 * Starts Gatehouse the way a user does — `node apps/auth/src/main.ts`, `node apps/api/src/main.ts`
 * and the client's `src/main.ts` twice (app-one, app-two) — on free loopback ports and a fresh
 * temporary data directory, waits until each answers its health endpoint, and stops them.
 * Every child's output goes to `e2e/artifacts/logs/<run>/<app>.log`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitUntilReady } from './processes.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const ARTIFACTS = join(REPO_ROOT, 'e2e', 'artifacts');
/**
 * Node's on-disk compile cache for the processes the tests start: the apps' and the CLI's
 * TypeScript, stripped and compiled once, is reused by every later process (the cache is keyed by
 * each file's content, so an edited file is compiled again).
 */
export const COMPILE_CACHE_ENV = { NODE_COMPILE_CACHE: join(REPO_ROOT, 'node_modules', '.cache', 'gatehouse-e2e-compile-cache') } as const;

export interface StackOptions {
  /** Name of the run (log folder). */
  name: string;
  /** Extra environment of the authorization server. */
  authEnv?: Record<string, string>;
  /** Extra environment of both client apps. */
  clientEnv?: Record<string, string>;
  /** Extra environment of the API. */
  apiEnv?: Record<string, string>;
  /** false: no client apps (app-one, app-two), for suites that bring relying parties of their own. */
  clientApps?: boolean;
}

export interface Stack {
  authUrl: string;
  apiUrl: string;
  appOneUrl: string;
  appTwoUrl: string;
  dataDir: string;
  /** Environment the authorization server runs with (the CLI needs the same). */
  authEnv: Record<string, string>;
  stop(): Promise<void>;
}


export async function startStack(options: StackOptions): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-e2e-'));
  const logDir = join(ARTIFACTS, 'logs', options.name);
  mkdirSync(logDir, { recursive: true });
  const [authPort, apiPort, appOnePort, appTwoPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const authUrl = `http://localhost:${authPort}`;
  const apiUrl = `http://localhost:${apiPort}`;
  const appOneUrl = `http://localhost:${appOnePort}`;
  const appTwoUrl = `http://localhost:${appTwoPort}`;
  const children: { name: string; child: ChildProcess }[] = [];

  const base: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dataDir,
    NODE_ENV: 'development',
    LOG_LEVEL: 'debug',
    ...COMPILE_CACHE_ENV,
    ...(process.env.TEST_POSTGRES_URL ? { TEST_POSTGRES_URL: process.env.TEST_POSTGRES_URL } : {}),
  };
  const authEnv: Record<string, string> = {
    ...base,
    AUTH_PORT: String(authPort),
    // Metrics listeners on free ports, so parallel stacks (or a dev stack) never collide.
    AUTH_METRICS_PORT: '0',
    AUTH_ISSUER: authUrl,
    AUTH_DATABASE_URL: `sqlite:${join(dataDir, 'auth.db')}`,
    AUTH_DATA_DIR: join(dataDir, 'auth'),
    APP_ONE_URL: appOneUrl,
    APP_TWO_URL: appTwoUrl,
    ...options.authEnv,
  };

  const run = (name: string, script: string, env: Record<string, string>): ChildProcess => {
    const log = createWriteStream(join(logDir, `${name}.log`));
    const child = spawn(process.execPath, [join(REPO_ROOT, script)], { cwd: dataDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    children.push({ name, child });
    return child;
  };

  const stop = async (): Promise<void> => {
    await Promise.all(
      children.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
            child.once('exit', () => {
              clearTimeout(force);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    const auth = run('auth', 'apps/auth/src/main.ts', authEnv);
    await waitUntilReady('auth', `http://127.0.0.1:${authPort}/healthz`, auth);
    const api = run('api', 'apps/api/src/main.ts', {
      ...base,
      API_PORT: String(apiPort),
      API_PUBLIC_URL: apiUrl,
      API_METRICS_PORT: '0',
      AUTH_ISSUER: authUrl,
      API_DATABASE_URL: `sqlite:${join(dataDir, 'api.db')}`,
      ...options.apiEnv,
    });
    const clientEnv = (clientId: string, port: number, url: string): Record<string, string> => ({
      ...base,
      CLIENT_ID: clientId,
      CLIENT_PORT: String(port),
      CLIENT_METRICS_PORT: '0',
      CLIENT_URL: url,
      AUTH_ISSUER: authUrl,
      API_URL: apiUrl,
      CLIENT_DATA_DIR: join(dataDir, clientId),
      ...options.clientEnv,
    });
    const ready = [waitUntilReady('api', `http://127.0.0.1:${apiPort}/readyz`, api)];
    if (options.clientApps !== false) {
      const appOne = run('app-one', 'apps/client/src/main.ts', clientEnv('app-one', appOnePort, appOneUrl));
      const appTwo = run('app-two', 'apps/client/src/main.ts', clientEnv('app-two', appTwoPort, appTwoUrl));
      ready.push(
        waitUntilReady('app-one', `http://127.0.0.1:${appOnePort}/healthz`, appOne),
        waitUntilReady('app-two', `http://127.0.0.1:${appTwoPort}/healthz`, appTwo),
      );
    }
    await Promise.all(ready);
  } catch (error) {
    await stop();
    throw error;
  }
  return { authUrl, apiUrl, appOneUrl, appTwoUrl, dataDir, authEnv, stop };
}
