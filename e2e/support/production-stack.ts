/**
 * Gatehouse the way deploy/README.md runs it: built output (`dist/`), NODE_ENV=production with
 * real random secrets, PostgreSQL databases with random names, migrations as their own step,
 * two authorization-server instances and two API instances behind Debian's nginx, which
 * terminates TLS with a certificate generated now (deploy/nginx/gatehouse.conf.template), and
 * one relying-party app. The issuer is the https address of the load balancer. Every process
 * logs to e2e/artifacts/logs/<name>/<instance>.log. A missing nginx, openssl or PostgreSQL is
 * an error, never a skip.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@gatehouse/db/testing';
import { ARTIFACTS, REPO_ROOT } from './stack.ts';
import { freePort, stopChild, waitUntilReady as waitUntil } from './processes.ts';

export type InstanceName = 'auth-1' | 'auth-2' | 'api-1' | 'api-2' | 'app-one';

export interface Instance {
  readonly name: InstanceName;
  readonly port: number;
  readonly logFile: string;
  child: ChildProcess;
  /** Starts it again (after a kill) and waits until it is ready. */
  restart(): Promise<void>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited(): Promise<number | null>;
}

export interface ProductionStack {
  authUrl: string;
  apiUrl: string;
  appUrl: string;
  audience: string;
  certFile: string;
  /** Secrets of the registered clients (app-one, and the API's `api`). */
  appClientSecret: string;
  apiClientSecret: string;
  instances: Record<InstanceName, Instance>;
  databases: { auth: TestDatabase; api: TestDatabase; client: TestDatabase };
  /** `authctl` from the built output, with the servers' environment. */
  authctl(args: string[], stdin?: string): { status: number | null; stdout: string; stderr: string };
  /** The instances whose log names this request id (waits up to 2 s for the line to be written). */
  servedBy(requestId: string): Promise<InstanceName[]>;
  stop(): Promise<void>;
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 120_000, ...options });
  if (result.error) throw new Error(`${command} could not run: ${result.error.message}`);
  return result;
}

/** The output `pnpm build` produces (packages, then apps linked to them): processes.ts. */

export function selfSignedCertificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'tls.crt');
  const key = join(dir, 'tls.key');
  const result = run('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', cert,
  ]);
  if (result.status !== 0) throw new Error(`openssl failed: ${result.stderr}`);
  return { cert, key };
}

/** Fills ${NAME} placeholders the way envsubst does; an unknown name is an error. */
export function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\$\{([A-Z0-9_]+)\}/g, (_m, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`template variable ${name} has no value`);
    return value;
  });
}

export async function startProductionStack(name: string): Promise<ProductionStack> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-prod-'));
  const logDir = join(ARTIFACTS, 'logs', name);
  mkdirSync(logDir, { recursive: true });
  const { cert, key } = selfSignedCertificate(dir);
  const databases = { auth: await createTestDatabase('postgres'), api: await createTestDatabase('postgres'), client: await createTestDatabase('postgres') };
  const ports = await Promise.all(Array.from({ length: 8 }, () => freePort()));
  const [authLb, apiLb, appLb, auth1, auth2, api1, api2, app1] = ports as [number, number, number, number, number, number, number, number];
  const authUrl = `https://127.0.0.1:${authLb}`;
  const apiUrl = `https://127.0.0.1:${apiLb}`;
  const appUrl = `https://127.0.0.1:${appLb}`;
  const audience = `${apiUrl}/api`;
  const children: ChildProcess[] = [];
  let nginx: ChildProcess | undefined;

  const base = { PATH: process.env.PATH ?? '', HOME: dir, NODE_ENV: 'production', LOG_LEVEL: 'info', TRUST_PROXY: 'true', NODE_EXTRA_CA_CERTS: cert };
  const authEnv: Record<string, string> = {
    ...base,
    AUTH_ISSUER: authUrl,
    AUTH_DATABASE_URL: databases.auth.url,
    AUTH_DATA_DIR: join(dir, 'auth'),
    AUTH_COOKIE_KEYS: randomBytes(32).toString('base64url'),
    AUTH_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
    AUTH_API_AUDIENCE: audience,
    // 4xx request lines are logged at debug: the suite finds which instance answered by request id.
    LOG_LEVEL: 'debug',
  };
  const authctl: ProductionStack['authctl'] = (args, stdin) => {
    const result = run(process.execPath, [join(REPO_ROOT, 'apps/auth/dist/cli/main.js'), ...args], { cwd: dir, env: authEnv, input: stdin ?? '' });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const mustCli = (args: string[], stdin?: string): string => {
    const result = authctl(args, stdin);
    if (result.status !== 0) throw new Error(`authctl ${args.join(' ')} failed: ${result.stderr}`);
    return result.stdout;
  };

  const stop = async (): Promise<void> => {
    const all = [...children, ...(nginx ? [nginx] : [])];
    await Promise.all(
      all.map((child) => stopChild(child, () => child.kill(child === nginx ? 'SIGQUIT' : 'SIGTERM'))),
    );
    await Promise.all(Object.values(databases).map((d) => d.drop().catch(() => undefined)));
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    // Migrations are their own step in production (the servers refuse a schema that is behind).
    mustCli(['db', 'migrate']);
    const apiMigrate = run(process.execPath, [join(REPO_ROOT, 'apps/api/dist/migrate.js')], { env: { ...base, API_DATABASE_URL: databases.api.url, API_INTROSPECTION_CLIENT_SECRET: 'unused-here', API_PUBLIC_URL: apiUrl } });
    if (apiMigrate.status !== 0) throw new Error(`api migrate failed: ${apiMigrate.stderr}`);
    const clientMigrate = run(process.execPath, [join(REPO_ROOT, 'apps/client/dist/migrate.js')], {
      env: { ...base, CLIENT_DATABASE_URL: databases.client.url },
    });
    if (clientMigrate.status !== 0) throw new Error(`client migrate failed: ${clientMigrate.stderr}`);

    // First registration, as deploy/README.md describes it.
    const app = JSON.parse(mustCli(['client', 'add', 'app-one', '--redirect-uri', `${appUrl}/callback`, '--post-logout-redirect-uri', `${appUrl}/signed-out`, '--name', 'App One', '--first-party', '--json'])) as { client_secret: string };
    const api = JSON.parse(mustCli(['client', 'add', 'api', '--grant', 'client_credentials', '--name', 'API', '--json'])) as { client_secret: string };

    const template = readFileSync(join(REPO_ROOT, 'deploy/nginx/gatehouse.conf.template'), 'utf8');
    const site = renderTemplate(template, {
      AUTH_SERVER_NAME: '127.0.0.1', API_SERVER_NAME: '127.0.0.1', APP_SERVER_NAME: '127.0.0.1',
      AUTH_LISTEN: `127.0.0.1:${authLb}`, API_LISTEN: `127.0.0.1:${apiLb}`, APP_LISTEN: `127.0.0.1:${appLb}`,
      TLS_CERT: cert, TLS_KEY: key, TLS_PROTOCOLS: 'TLSv1.2 TLSv1.3', ACCESS_LOG: join(logDir, 'nginx-gatehouse.log'),
      AUTH_1: `127.0.0.1:${auth1}`, AUTH_2: `127.0.0.1:${auth2}`, API_1: `127.0.0.1:${api1}`, API_2: `127.0.0.1:${api2}`, APP_1: `127.0.0.1:${app1}`,
    });
    mkdirSync(join(dir, 'nginx', 'tmp'), { recursive: true });
    writeFileSync(join(dir, 'nginx', 'gatehouse.conf'), site);
    const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    writeFileSync(
      join(dir, 'nginx', 'nginx.conf'),
      [
        ...(asRoot ? ['user root;'] : []),
        'worker_processes 1;',
        'daemon off;',
        `pid ${join(dir, 'nginx', 'nginx.pid')};`,
        `error_log ${join(logDir, 'nginx-error.log')} warn;`,
        'events { worker_connections 1024; }',
        'http {',
        `  access_log ${join(logDir, 'nginx-access.log')};`,
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(dir, 'nginx', 'tmp', t)};`),
        `  include ${join(dir, 'nginx', 'gatehouse.conf')};`,
        '}',
      ].join('\n'),
    );

    const spawnLogged = (label: string, command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess => {
      const log = createWriteStream(join(logDir, `${label}.log`), { flags: 'a' });
      const child = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout!.pipe(log);
      child.stderr!.pipe(log);
      children.push(child);
      return child;
    };
    const nginxBinary = process.env.NGINX_PATH ?? (existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx');
    if (run(nginxBinary, ['-v']).status !== 0) throw new Error('nginx is required for the production suite (apt-get install -y nginx, or set NGINX_PATH)');
    nginx = spawn(nginxBinary, ['-p', join(dir, 'nginx'), '-c', join(dir, 'nginx', 'nginx.conf'), '-e', join(logDir, 'nginx-error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx.on('error', () => undefined);

    const apiEnv = (port: number): Record<string, string> => ({
      ...base,
      API_PORT: String(port),
      API_PUBLIC_URL: apiUrl,
      AUTH_ISSUER: authUrl,
      API_AUDIENCE: audience,
      API_DATABASE_URL: databases.api.url,
      API_INTROSPECTION_CLIENT_ID: 'api',
      API_INTROSPECTION_CLIENT_SECRET: api.client_secret,
      API_METRICS_PORT: '0',
    });
    const specs: Record<InstanceName, { script: string; env: Record<string, string>; port: number; ready: string }> = {
      'auth-1': { script: 'apps/auth/dist/main.js', env: { ...authEnv, AUTH_PORT: String(auth1), AUTH_METRICS_PORT: '0' }, port: auth1, ready: '/healthz' },
      'auth-2': { script: 'apps/auth/dist/main.js', env: { ...authEnv, AUTH_PORT: String(auth2), AUTH_METRICS_PORT: '0' }, port: auth2, ready: '/healthz' },
      'api-1': { script: 'apps/api/dist/main.js', env: apiEnv(api1), port: api1, ready: '/readyz' },
      'api-2': { script: 'apps/api/dist/main.js', env: apiEnv(api2), port: api2, ready: '/readyz' },
      'app-one': {
        script: 'apps/client/dist/main.js',
        env: {
          ...base,
          CLIENT_ID: 'app-one',
          CLIENT_SECRET: app.client_secret,
          CLIENT_URL: appUrl,
          CLIENT_PORT: String(app1),
          AUTH_ISSUER: authUrl,
          API_URL: apiUrl,
          CLIENT_DATABASE_URL: databases.client.url,
          CLIENT_COOKIE_KEYS: randomBytes(32).toString('base64url'),
          CLIENT_METRICS_PORT: '0',
        },
        port: app1,
        ready: '/healthz',
      },
    };
    const instances = {} as Record<InstanceName, Instance>;
    for (const [label, spec] of Object.entries(specs) as [InstanceName, (typeof specs)[InstanceName]][]) {
      const start = () => spawnLogged(label, process.execPath, [join(REPO_ROOT, spec.script)], spec.env);
      const instance: Instance = {
        name: label,
        port: spec.port,
        logFile: join(logDir, `${label}.log`),
        child: start(),
        async restart() {
          instance.child = start();
          await waitUntil(label, `http://127.0.0.1:${spec.port}${spec.ready}`, instance.child);
        },
        exited() {
          const child = instance.child;
          if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
          return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
        },
      };
      instances[label] = instance;
      if (label === 'auth-2') {
        await Promise.all([waitUntil('auth-1', `http://127.0.0.1:${auth1}/healthz`, instances['auth-1'].child), waitUntil('auth-2', `http://127.0.0.1:${auth2}/healthz`, instance.child)]);
      }
    }
    await Promise.all(
      (['api-1', 'api-2', 'app-one'] as const).map((n) => waitUntil(n, `http://127.0.0.1:${instances[n].port}${specs[n].ready}`, instances[n].child)),
    );
    if (nginx.exitCode !== null) throw new Error('nginx exited at start (see nginx-error.log)');

    const servedBy = async (requestId: string): Promise<InstanceName[]> => {
      for (let i = 0; i < 40; i += 1) {
        const found = (Object.keys(instances) as InstanceName[]).filter((n) => readFileSync(instances[n].logFile, 'utf8').includes(requestId));
        if (found.length) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return [];
    };
    return { authUrl, apiUrl, appUrl, audience, certFile: cert, appClientSecret: app.client_secret, apiClientSecret: api.client_secret, instances, databases, authctl, servedBy, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
