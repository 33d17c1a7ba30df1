/**
 * The Gatehouse processes the suite measures, each as production runs it: built output
 * (`dist/`), NODE_ENV=production with real random secrets, migrations as their own step,
 * clients and users registered through `authctl` (as deploy/README.md does), logs at info
 * written straight to a file (the access line is part of the cost). No nginx, no TLS: the
 * load reaches each process on loopback. One auth + API pair per storage engine; one client.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@gatehouse/db/testing';
import { freePort, stopChild, waitUntilReady as waitUntil } from '@gatehouse/e2e/processes';
import { processCpu } from './process-cpu.ts';

export const REPO_ROOT = new URL('../../', import.meta.url).pathname;

export type Engine = 'sqlite' | 'postgres';

/** The output `pnpm build` produces: packages compiled, apps compiled and linked to them. */
export { buildForProduction as buildApps } from '@gatehouse/e2e/processes';

/** Resident set size of a process, MB (Linux /proc). */
export function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return kb / 1024;
}

/** CPU time (user + system) a process has used so far, µs (Linux /proc; clock ticks of 10 ms). */
export function cpuMicros(pid: number): number {
  return processCpu(pid).micros;
}

/**
 * CPU time all PostgreSQL server processes on this machine have used so far, µs: the backends of
 * every connection plus the WAL writer, checkpointer and the rest. They share the cores with the
 * servers measured, so a side that stores in PostgreSQL pays for them too.
 */
export function postgresCpuMicros(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const { command, micros } = processCpu(entry);
      if (command === 'postgres') total += micros;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}

export interface User {
  readonly username: string;
  readonly password: string;
  readonly totpSecret: string;
}

export interface Server {
  readonly port: number;
  readonly url: string;
  readonly child: ChildProcess;
  /** The process's log file (JSON lines). */
  readonly log: string;
}

/** The /metrics URL a Gatehouse process logged at start (`metrics_started`). */
export function metricsUrl(server: Server): string | undefined {
  for (const line of readFileSync(server.log, 'utf8').split('\n')) {
    if (!line.includes('"metrics_started"')) continue;
    try {
      return (JSON.parse(line) as { url?: string }).url;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export interface EngineStack {
  readonly engine: Engine;
  readonly auth: Server;
  readonly api: Server;
  readonly audience: string;
  /** Confidential client of the authorization-code flow (client_secret_basic). */
  readonly app: { clientId: string; clientSecret: string; redirectUri: string };
  /** Machine client (client_credentials), also the API's introspection credentials. */
  readonly machine: { clientId: string; clientSecret: string };
  readonly users: readonly User[];
  readonly databaseUrl: { auth: string; api: string };
}

export interface ProcessesOptions {
  /** The command that runs each script: this Node by default; instructions.ts passes a wrapper that starts some under callgrind. */
  readonly node?: string;
  /** A folder where every process writes a V8 CPU profile when it stops. */
  readonly cpuProfileDir?: string | undefined;
  /** NODE_OPTIONS of the Gatehouse processes (runtime flags to try, e.g. --max-semi-space-size=2). */
  readonly nodeOptions?: string | undefined;
  /** Keep the PostgreSQL databases (their URLs are printed) instead of dropping them. */
  readonly keepDatabases?: boolean;
}

export class Processes {
  readonly children: ChildProcess[] = [];
  readonly databases: TestDatabase[] = [];
  readonly dir: string;
  readonly node: string;
  private readonly options: ProcessesOptions;
  constructor(dir: string, options: ProcessesOptions = {}) {
    this.dir = dir;
    this.node = options.node ?? process.execPath;
    this.options = options;
  }

  /** Node's flags for a CPU profile named after the process, when profiles were asked for. */
  private profileFlags(name: string): string[] {
    const dir = this.options.cpuProfileDir;
    return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  }

  private spawnLogged(name: string, script: string, env: Record<string, string>): ChildProcess {
    mkdirSync(join(this.dir, 'logs'), { recursive: true });
    const fd = openSync(join(this.dir, 'logs', `${name}.log`), 'a');
    const child = spawn(this.node, [...this.profileFlags(name), join(REPO_ROOT, script)], {
      cwd: this.dir,
      env: this.options.nodeOptions ? { ...env, NODE_OPTIONS: this.options.nodeOptions } : env,
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    this.children.push(child);
    return child;
  }

  private run(script: string, args: string[], env: Record<string, string>, input = ''): string {
    const result = spawnSync(this.node, [join(REPO_ROOT, script), ...args], { cwd: this.dir, env, input, encoding: 'utf8', timeout: 120_000 });
    if (result.status !== 0) throw new Error(`${script} ${args.join(' ')} failed: ${result.stderr}`);
    return result.stdout;
  }

  /** `name` tells the files and logs of a second stack on the same engine apart (default: the engine). */
  async startEngine(engine: Engine, userCount: number, name: string = engine): Promise<EngineStack> {
    const dbs = engine === 'postgres' ? await Promise.all([createTestDatabase('postgres'), createTestDatabase('postgres')]) : undefined;
    if (dbs) this.databases.push(...dbs);
    const databaseUrl = {
      auth: dbs ? dbs[0].url : `sqlite:${join(this.dir, `auth-${name}.db`)}`,
      api: dbs ? dbs[1].url : `sqlite:${join(this.dir, `api-${name}.db`)}`,
    };
    const [authPort, apiPort] = [await freePort(), await freePort()];
    const base = { PATH: process.env.PATH ?? '', HOME: this.dir, NODE_ENV: 'production', LOG_LEVEL: 'info' };
    const authUrl = `http://127.0.0.1:${authPort}`;
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const audience = `${apiUrl}/api`;
    const authEnv = {
      ...base,
      AUTH_ISSUER: authUrl,
      AUTH_PORT: String(authPort),
      AUTH_DATABASE_URL: databaseUrl.auth,
      AUTH_DATA_DIR: join(this.dir, `auth-data-${name}`),
      AUTH_COOKIE_KEYS: randomBytes(32).toString('base64url'),
      AUTH_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
      AUTH_API_AUDIENCE: audience,
      AUTH_METRICS_PORT: '0',
    };
    const cli = (args: string[], input?: string) => this.run('apps/auth/dist/cli/main.js', args, authEnv, input);
    cli(['db', 'migrate']);
    const redirectUri = 'http://127.0.0.1:9/callback';
    const app = JSON.parse(cli(['client', 'add', 'bench-app', '--redirect-uri', redirectUri, '--name', 'Bench App', '--first-party', '--json'])) as { client_secret: string };
    const machine = JSON.parse(cli(['client', 'add', 'api', '--grant', 'client_credentials', '--name', 'API', '--json'])) as { client_secret: string };
    const users: User[] = [];
    for (let i = 0; i < userCount; i++) {
      const username = `bench-${i}`;
      const password = `pw-${randomBytes(9).toString('base64url')}`;
      cli(['user', 'add', username, '--email', `${username}@example.com`, '--name', username, '--password-stdin'], `${password}\n`);
      const totp = JSON.parse(cli(['user', 'totp', username, '--json'])) as { uri?: string; otpauth_uri?: string; secret?: string };
      const secret = totp.secret ?? new URL(totp.uri ?? totp.otpauth_uri ?? '').searchParams.get('secret');
      if (!secret) throw new Error(`authctl user totp printed no secret: ${JSON.stringify(Object.keys(totp))}`);
      users.push({ username, password, totpSecret: secret });
    }
    this.run('apps/api/dist/migrate.js', [], { ...base, API_DATABASE_URL: databaseUrl.api, API_INTROSPECTION_CLIENT_SECRET: 'unused-here', API_PUBLIC_URL: apiUrl });

    const authChild = this.spawnLogged(`auth-${name}`, 'apps/auth/dist/main.js', authEnv);
    await waitUntil(`auth-${name}`, `${authUrl}/healthz`, authChild);
    const apiChild = this.spawnLogged(`api-${name}`, 'apps/api/dist/main.js', {
      ...base,
      API_PORT: String(apiPort),
      API_PUBLIC_URL: apiUrl,
      AUTH_ISSUER: authUrl,
      API_AUDIENCE: audience,
      API_DATABASE_URL: databaseUrl.api,
      API_INTROSPECTION_CLIENT_ID: 'api',
      API_INTROSPECTION_CLIENT_SECRET: machine.client_secret,
      API_METRICS_PORT: '0',
    });
    await waitUntil(`api-${name}`, `${apiUrl}/readyz`, apiChild);
    return {
      engine,
      auth: { port: authPort, url: authUrl, child: authChild, log: join(this.dir, 'logs', `auth-${name}.log`) },
      api: { port: apiPort, url: apiUrl, child: apiChild, log: join(this.dir, 'logs', `api-${name}.log`) },
      audience,
      app: { clientId: 'bench-app', clientSecret: app.client_secret, redirectUri },
      machine: { clientId: 'api', clientSecret: machine.client_secret },
      users,
      databaseUrl,
    };
  }

  /** The relying party (app-one role), on SQLite, pointed at `stack`. */
  async startClient(stack: EngineStack): Promise<Server> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const base = { PATH: process.env.PATH ?? '', HOME: this.dir, NODE_ENV: 'production', LOG_LEVEL: 'info' };
    const clientEnv = {
      ...base,
      CLIENT_ID: stack.app.clientId,
      CLIENT_SECRET: stack.app.clientSecret,
      CLIENT_URL: url,
      CLIENT_PORT: String(port),
      AUTH_ISSUER: stack.auth.url,
      API_URL: stack.api.url,
      CLIENT_DATABASE_URL: `sqlite:${join(this.dir, 'client.db')}`,
      CLIENT_COOKIE_KEYS: randomBytes(32).toString('base64url'),
      CLIENT_METRICS_PORT: '0',
    };
    // The migration step knows the apps by their APP_ONE_* / APP_TWO_* variables (apps/client/src/launcher.ts).
    this.run('apps/client/dist/migrate.js', [], { ...base, CLIENT_DATABASE_URL: clientEnv.CLIENT_DATABASE_URL });
    const child = this.spawnLogged('client', 'apps/client/dist/main.js', clientEnv);
    await waitUntil('client', `${url}/healthz`, child);
    return { port, url, child, log: join(this.dir, 'logs', 'client.log') };
  }

  /** A child script of this package (a baseline), answering its first IPC message. */
  async fork<T>(name: string, script: string, args: string[]): Promise<{ child: ChildProcess; message: T }> {
    mkdirSync(join(this.dir, 'logs'), { recursive: true });
    const fd = openSync(join(this.dir, 'logs', `${name}.log`), 'a');
    const child = spawn(this.node, [...this.profileFlags(name), new URL(script, import.meta.url).pathname, ...args], {
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', fd, fd, 'ipc'],
    });
    closeSync(fd);
    this.children.push(child);
    const message = await new Promise<T>((resolve, reject) => {
      child.once('message', (m) => resolve(m as T));
      child.once('exit', (code) => reject(new Error(`${name} exited with ${code} (see ${join(this.dir, 'logs', `${name}.log`)})`)));
    });
    return { child, message };
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.children.map((child) => stopChild(child, () => (child.connected ? child.disconnect() : child.kill('SIGTERM')))),
    );
    // Kept databases are dropped by hand (DROP DATABASE) when done.
    if (this.options.keepDatabases) {
      for (const d of this.databases) if (d.engine === 'postgres') console.log(`PostgreSQL database kept: ${d.url}`);
    } else {
      await Promise.all(this.databases.map((d) => d.drop().catch(() => undefined)));
    }
  }
}
