/**
 * deploy/README.md, followed as written. Every step runs the script the guide shows
 * (deploy/scripts/*.sh), with the environment file generate-secrets.sh makes from
 * deploy/env.example (parsed, then only the hosts, ports, role and database names a test on one
 * host must change; check-config.sh accepts it for every app), on a clean PostgreSQL (its own
 * role and databases, made by create-databases.sh) and Debian's nginx (the site rendered by
 * render-nginx.sh): secrets, databases, migrations, first registration (the relying party's
 * back-channel logout URI, which a sign-out everywhere reaches through nginx), the load balancer, two
 * auth and two API instances on one host (metrics ports of their own), one relying party; then a
 * pg_dump backup restored into new databases, after which the same user, client and signing keys
 * sign in. Also: nginx's access log and the apps' lines share the request id, every metric the
 * shipped alert rules and dashboard name is served, and nothing but JSON reaches stdout or stderr.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { TEST_POSTGRES_URL } from '@gatehouse/db/testing';
import { selfSignedCertificate } from '../support/production-stack.ts';
import { freePort, stopChild, waitUntilReady } from '../support/processes.ts';
import { ARTIFACTS, REPO_ROOT } from '../support/stack.ts';
import { nextCode, type E2eUser } from '../support/users.ts';

// Only this test process's own client: the certificate is the one the test made a minute ago.
process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';

const SCRIPTS = join(REPO_ROOT, 'deploy', 'scripts');
const LOGS = join(ARTIFACTS, 'logs', 'deploy-guide');
const server = new URL(TEST_POSTGRES_URL);
/** psql, pg_dump and create-databases.sh as the PostgreSQL superuser the tests use. */
const superuser = { PGHOST: server.hostname, PGPORT: server.port || '5432', PGUSER: decodeURIComponent(server.username) || 'postgres', PGDATABASE: 'postgres' };

/** Runs one of the guide's scripts from the built tree; its stdout, or a failure naming its stderr. */
function script(name: string, args: string[], env: Record<string, string>, input?: string): string {
  const result = spawnSync('sh', [join(SCRIPTS, name), ...args], { cwd: REPO_ROOT, env, input: input ?? '', encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`${name} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

/** authctl (the built CLI) with the environment file, as the guide runs it. */
function authctl(args: string[]) {
  return spawnSync(process.execPath, [join(REPO_ROOT, 'apps/auth/dist/cli/main.js'), ...args], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 60_000 });
}

/** NAME=value lines, as the scripts print them for the environment file. */
function variables(output: string): Record<string, string> {
  return Object.fromEntries(output.trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

/**
 * An environment file as systemd and compose read it: `NAME=value` lines (a value in double quotes
 * loses them), comments and blank lines skipped. `documented` also holds the names of commented-out
 * settings (`# NAME=value`), the file's optional ones.
 */
function environmentFile(text: string): { values: Record<string, string>; documented: Set<string> } {
  const values: Record<string, string> = {};
  const documented = new Set<string>();
  for (const line of text.split('\n')) {
    const setting = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (!setting) continue;
    documented.add(setting[2]!);
    if (!setting[1]) values[setting[2]!] = setting[3]!.replace(/^"(.*)"$/, '$1');
  }
  return { values, documented };
}

type Name = 'auth-1' | 'auth-2' | 'api-1' | 'api-2' | 'app-one';
interface Running {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  metricsPort: number;
}

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-guide-'));
const suffix = randomBytes(4).toString('hex');
const role = `gh_guide_${suffix}`;
const databases = (set: string) => ({ auth: `gh_guide_${suffix}_${set}_auth`, api: `gh_guide_${suffix}_${set}_api`, client: `gh_guide_${suffix}_${set}_client` });
const first = databases('a');
const restored = databases('r');
let env: Record<string, string>;
let urls: { auth: string; api: string; app: string };
const running = new Map<Name, Running>();
let nginx: ChildProcess | undefined;
let accessLog: string;
const user: E2eUser = { username: `alice-${suffix}`, password: `pw-${randomBytes(12).toString('base64url')}`, name: 'Alice', email: `alice-${suffix}@example.com`, groups: ['admins'] };

/** One of the environment file's database URLs (its password kept) on the test's server, role and database. */
function databaseUrl(url: string, name: string): string {
  const moved = new URL(url);
  Object.assign(moved, { hostname: superuser.PGHOST, port: superuser.PGPORT, username: role, pathname: `/${name}` });
  return moved.toString();
}
/** The environment file's own database URLs, before the test points them at its databases. */
let fileUrls: { auth: string; api: string; client: string };

/** One instance, as the guide starts it: start.sh, which becomes the app (exec), so SIGTERM reaches it. */
async function start(name: Name, extra: Record<string, string>, ready: string): Promise<void> {
  const app = name.startsWith('auth') ? 'auth' : name.startsWith('api') ? 'api' : 'client';
  const port = Number(Object.entries(extra).find(([key]) => /^(AUTH|API|CLIENT)_PORT$/.test(key))![1]);
  const metricsPort = Number(Object.entries(extra).find(([key]) => key.endsWith('_METRICS_PORT'))![1]);
  const child = spawn('sh', [join(SCRIPTS, 'start.sh'), app], { cwd: dir, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
  const instance: Running = { child, stdout: '', stderr: '', metricsPort };
  const log = createWriteStream(join(LOGS, `${name}.log`), { flags: 'a' });
  instance.child.stdout!.on('data', (chunk: Buffer) => ((instance.stdout += chunk.toString()), log.write(chunk)));
  instance.child.stderr!.on('data', (chunk: Buffer) => ((instance.stderr += chunk.toString()), log.write(chunk)));
  running.set(name, instance);
  await waitUntilReady(name, `http://127.0.0.1:${port}${ready}`, instance.child);
}

async function stopApps(): Promise<void> {
  await Promise.all([...running.values()].map(({ child }) => stopChild(child, () => child.kill('SIGTERM'))));
}

/** Starts the five instances the guide describes, on the databases of `set`. */
async function startApps(set: ReturnType<typeof databases>, ports: Record<string, number>): Promise<void> {
  env = { ...env, AUTH_DATABASE_URL: databaseUrl(fileUrls.auth, set.auth), API_DATABASE_URL: databaseUrl(fileUrls.api, set.api), CLIENT_DATABASE_URL: databaseUrl(fileUrls.client, set.client) };
  // Two instances of one app on one host: a port and a metrics port of their own each.
  await Promise.all([
    start('auth-1', { AUTH_PORT: String(ports.auth1), AUTH_METRICS_PORT: String(ports.authMetrics1) }, '/readyz'),
    start('auth-2', { AUTH_PORT: String(ports.auth2), AUTH_METRICS_PORT: String(ports.authMetrics2) }, '/readyz'),
  ]);
  await Promise.all([
    start('api-1', { API_PORT: String(ports.api1), API_METRICS_PORT: String(ports.apiMetrics1) }, '/readyz'),
    start('api-2', { API_PORT: String(ports.api2), API_METRICS_PORT: String(ports.apiMetrics2) }, '/readyz'),
    start('app-one', { CLIENT_PORT: String(ports.app1), CLIENT_METRICS_PORT: String(ports.appMetrics) }, '/readyz'),
  ]);
}

let ports: Record<string, number>;

beforeAll(async () => {
  mkdirSync(LOGS, { recursive: true });
  for (const file of readdirSync(LOGS)) rmSync(join(LOGS, file), { force: true });
  const names = ['authLb', 'apiLb', 'appLb', 'auth1', 'auth2', 'api1', 'api2', 'app1', 'authMetrics1', 'authMetrics2', 'apiMetrics1', 'apiMetrics2', 'appMetrics'];
  ports = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await freePort()] as const)));
  urls = { auth: `https://127.0.0.1:${ports.authLb}`, api: `https://127.0.0.1:${ports.apiLb}`, app: `https://127.0.0.1:${ports.appLb}` };
  const { cert, key } = selfSignedCertificate(dir);
  // The scripts' `node` is the one running this test (Node 24), whatever the host's PATH holds first.
  const base = { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: dir };

  // 1. Secrets: the environment file, made from env.example with every secret filled by the one recipe.
  const file = environmentFile(script('generate-secrets.sh', [join(REPO_ROOT, 'deploy/env.example')], base));
  for (const name of ['DB_PASSWORD', 'AUTH_ENCRYPTION_KEYS', 'AUTH_COOKIE_KEYS', 'CLIENT_COOKIE_KEYS']) expect(file.values[name], name).toMatch(/^[A-Za-z0-9_-]{43}$/);
  fileUrls = { auth: file.values.AUTH_DATABASE_URL!, api: file.values.API_DATABASE_URL!, client: file.values.CLIENT_DATABASE_URL! };
  for (const url of Object.values(fileUrls)) expect(decodeURIComponent(new URL(url).password)).toBe(file.values.DB_PASSWORD);
  expect(Object.entries(file.values).filter(([, value]) => value.includes('${') || value === '')).toEqual([]);
  expect(Object.keys(variables(script('generate-secrets.sh', [], base)))).toEqual(['DB_PASSWORD', 'AUTH_ENCRYPTION_KEYS', 'AUTH_COOKIE_KEYS', 'CLIENT_COOKIE_KEYS']);

  // What a test on one host must change: its role (one per run), public URLs on loopback ports,
  // its certificate, its data directory, the nginx upstreams and listeners. Nothing the file lacks.
  const overrides: Record<string, string> = {
    DB_ROLE: role,
    NODE_EXTRA_CA_CERTS: cert,
    AUTH_ISSUER: urls.auth,
    AUTH_DATA_DIR: join(dir, 'auth-data'),
    AUTH_API_AUDIENCE: `${urls.api}/api`,
    API_PUBLIC_URL: urls.api,
    API_AUDIENCE: `${urls.api}/api`,
    CLIENT_URL: urls.app,
    API_URL: urls.api,
    AUTH_SERVER_NAME: '127.0.0.1', API_SERVER_NAME: '127.0.0.1', APP_SERVER_NAME: '127.0.0.1',
    AUTH_LISTEN: `127.0.0.1:${ports.authLb}`, API_LISTEN: `127.0.0.1:${ports.apiLb}`, APP_LISTEN: `127.0.0.1:${ports.appLb}`,
    TLS_CERT: cert, TLS_KEY: key,
    AUTH_1: `127.0.0.1:${ports.auth1}`, AUTH_2: `127.0.0.1:${ports.auth2}`, API_1: `127.0.0.1:${ports.api1}`, API_2: `127.0.0.1:${ports.api2}`, APP_1: `127.0.0.1:${ports.app1}`,
    ACCESS_LOG: join(LOGS, 'nginx-access.log'),
  };
  expect(Object.keys(overrides).filter((name) => !file.documented.has(name))).toEqual([]);
  env = { ...base, ...file.values, ...overrides };

  // 2. The role and the databases, as the PostgreSQL superuser (DB_ROLE and DB_PASSWORD from the file).
  script('create-databases.sh', [first.auth, first.api, first.client], { ...env, ...superuser });
  env = { ...env, AUTH_DATABASE_URL: databaseUrl(fileUrls.auth, first.auth), API_DATABASE_URL: databaseUrl(fileUrls.api, first.api), CLIENT_DATABASE_URL: databaseUrl(fileUrls.client, first.client) };
  // 3. Migrations: before any client exists (the API's step needs only its database).
  const migrated = script('migrate.sh', [], env);
  expect(migrated).toContain('api: applied');
  // Before registration, the check names exactly the two secrets register-clients.sh prints.
  const early = spawnSync('sh', [join(SCRIPTS, 'check-config.sh')], { cwd: REPO_ROOT, env, encoding: 'utf8' });
  expect(early.status).toBe(1);
  expect(early.stderr.trim().split('\n')).toEqual(['api: API_INTROSPECTION_CLIENT_SECRET must be set when NODE_ENV=production', 'app-one: CLIENT_SECRET must be set when NODE_ENV=production']);
  // 4. First registration: the clients' secrets go into the environment file.
  const registered = variables(script('register-clients.sh', [], env));
  expect(Object.keys(registered)).toEqual(['CLIENT_SECRET', 'API_INTROSPECTION_CLIENT_SECRET']);
  env = { ...env, ...registered };
  // The relying party's back-channel logout URI: $CLIENT_URL/backchannel-logout, logout tokens with sid.
  expect(JSON.parse(authctl(['client', 'show', 'app-one', '--json']).stdout)).toMatchObject({ backchannel_logout_uri: `${urls.app}/backchannel-logout`, backchannel_logout_session_required: true });
  // Now the file is whole: every app accepts it (exit 0), one line each.
  const accepted = script('check-config.sh', [], env);
  expect(accepted.trim().split('\n').map((line) => line.slice(0, line.indexOf(' (')))).toEqual(['auth: configuration ok', 'api: configuration ok', 'app-one: configuration ok']);
  script('add-user.sh', [user.username, user.email, user.name, 'admins'], env, `${user.password}\n`);
  const totp = authctl(['user', 'totp', user.username, '--json']);
  expect(totp.status).toBe(0);
  user.totpSecret = new URL((JSON.parse(totp.stdout) as { otpauth_uri: string }).otpauth_uri).searchParams.get('secret')!;

  // 5. The load balancer: the site rendered with the template's own variables only, from the file.
  accessLog = env.ACCESS_LOG!;
  const site = script('render-nginx.sh', [], env);
  expect(site).toContain('proxy_set_header X-Request-Id $request_id;');
  expect(site).toContain('proxy_set_header X-Forwarded-For $remote_addr;');
  const nginxDir = join(dir, 'nginx');
  mkdirSync(join(nginxDir, 'tmp'), { recursive: true });
  writeFileSync(join(nginxDir, 'gatehouse.conf'), site);
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  writeFileSync(
    join(nginxDir, 'nginx.conf'),
    [
      ...(asRoot ? ['user root;'] : []),
      'worker_processes 1;',
      'daemon off;',
      `pid ${join(nginxDir, 'nginx.pid')};`,
      `error_log ${join(LOGS, 'nginx-error.log')} warn;`,
      'events { worker_connections 256; }',
      'http {',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(nginxDir, 'tmp', t)};`),
      `  include ${join(nginxDir, 'gatehouse.conf')};`,
      '}',
    ].join('\n'),
  );
  const nginxArgs = ['-p', nginxDir, '-c', join(nginxDir, 'nginx.conf'), '-e', join(LOGS, 'nginx-error.log')];
  const checked = spawnSync('/usr/sbin/nginx', ['-t', ...nginxArgs], { encoding: 'utf8' });
  expect(checked.status, checked.stderr).toBe(0);
  nginx = spawn('/usr/sbin/nginx', nginxArgs, { stdio: 'ignore' });

  // 6. The instances.
  await startApps(first, ports);
}, 360_000);

afterAll(async () => {
  await stopApps();
  if (nginx) await stopChild(nginx, () => nginx!.kill('SIGQUIT'));
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  for (const name of [...Object.values(first), ...Object.values(restored)]) await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.query(`drop role if exists "${role}"`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** A cookie-keeping client of one browser session. */
class Session {
  readonly cookies = new Map<string, string>();
  async send(url: string, init: { json?: unknown } = {}) {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.json !== undefined) Object.assign(headers, { 'content-type': 'application/json', accept: 'application/json' });
    const response = await fetch(url, { method: init.json === undefined ? 'GET' : 'POST', headers, body: init.json === undefined ? undefined : JSON.stringify(init.json), redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return { status: response.status, location: response.headers.get('location'), text: await response.text(), requestId: response.headers.get('x-request-id') };
  }
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** The user signs in through nginx (password, TOTP) for the registered client, which redeems the code with its secret. */
async function signIn(): Promise<{ tokens: Record<string, string>; loginRequestId: string }> {
  const session = new Session();
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL('/oauth2/v1/authorize', urls.auth);
  authorize.search = new URLSearchParams({
    response_type: 'code', client_id: 'app-one', redirect_uri: `${urls.app}/callback`, scope: 'openid profile email', state: randomBytes(6).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  }).toString();
  const page = await session.send(authorize.toString());
  expect(page.status).toBe(200);
  const uid = /name="uid" value="([^"]+)"/.exec(page.text)![1]!;
  const login = await session.send(`${urls.auth}/login`, { json: { uid, username: user.username, password: user.password } });
  expect(login.status).toBe(200);
  const verified = await session.send(`${urls.auth}/mfa/verify`, { json: { uid, code: await nextCode(user) } });
  expect(verified.status).toBe(302);
  const resumed = verified.location!.startsWith('/') ? await session.send(`${urls.auth}${verified.location}`) : verified;
  const callback = new URL(resumed.location!);
  expect(`${callback.origin}${callback.pathname}`).toBe(`${urls.app}/callback`);
  const token = await fetch(`${urls.auth}/oauth2/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('app-one', env.CLIENT_SECRET!) },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: `${urls.app}/callback`, code_verifier: verifier }),
  });
  expect(token.status).toBe(200);
  return { tokens: (await token.json()) as Record<string, string>, loginRequestId: login.requestId! };
}

/** The API's own client: a client_credentials token with the secret register-clients.sh printed. */
async function apiClientToken(): Promise<number> {
  const response = await fetch(`${urls.auth}/oauth2/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('api', env.API_INTROSPECTION_CLIENT_SECRET!) },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  return response.status;
}

async function publishedKids(): Promise<string[]> {
  const jwks = (await (await fetch(`${urls.auth}/oauth2/v1/keys`)).json()) as { keys: { kid: string }[] };
  return jwks.keys.map((k) => k.kid).sort();
}

/** Metric names an expression refers to (the apps' prefixes; a histogram's series by their base name). */
function metricNames(expression: string): string[] {
  const names = expression.match(/\b(?:http|auth|gatehouse|db|nodejs|process)_[a-z0-9_]+\b/g) ?? [];
  return names.map((name) => name.replace(/_(bucket|sum|count)$/, ''));
}

let kidsBefore: string[];
let signedInKid: string;
let signedInSub: string;

describe('deploy/README.md, followed with its scripts', () => {
  it('the user signs in through nginx with the registered client; the API reaches the issuer by its public name (NODE_EXTRA_CA_CERTS)', async () => {
    const { tokens } = await signIn();
    signedInKid = decodeProtectedHeader(tokens.id_token!).kid!;
    signedInSub = decodeJwt(tokens.id_token!).sub!;
    kidsBefore = await publishedKids();
    expect(kidsBefore).toContain(signedInKid);
    expect(await apiClientToken()).toBe(200);
    // Each API instance's readiness includes the issuer's discovery over https, through nginx.
    const ready = await fetch(`${urls.api}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('ending the session (authctl user signout-all) posts a logout token to the registered URI through nginx, which the app takes', async () => {
    const signedOut = authctl(['user', 'signout-all', user.username]);
    expect(signedOut.stdout).toContain(`signed ${user.username} out everywhere: 1 session`);
    expect(`${signedOut.stdout}${signedOut.stderr}`).not.toContain('session.backchannel_logout.failed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const posted = readFileSync(accessLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.uri === '/backchannel-logout');
    expect(posted).toMatchObject([{ method: 'POST', status: 200 }]);
    // The app validated the token (signature by the issuer's keys fetched through nginx, aud, sid) and looked for its sessions of that sid.
    const taken = running.get('app-one')!.stdout.split('\n').filter((l) => l.includes('"session.backchannel_logout')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(taken).toMatchObject([{ event: 'session.backchannel_logout', sub: signedInSub, sessions: 0 }]);
  });

  it('one request id in nginx\'s access log, the app\'s request line (the route that ran: POST /login) and the audit row', async () => {
    const { loginRequestId } = await signIn();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const nginxLine = readFileSync(accessLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.request_id === loginRequestId);
    expect(nginxLine).toMatchObject({ method: 'POST', uri: '/login', status: 200 });
    const appLines = [...running.entries()].filter(([name]) => name.startsWith('auth')).flatMap(([, r]) => r.stdout.split('\n')).filter((l) => l.includes(loginRequestId)).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(appLines.find((l) => l.event === 'http_request')).toMatchObject({ method: 'POST', path: '/login', status: 200 });
    expect(appLines.find((l) => l.event === 'login.password.success')).toMatchObject({ audit: true, request_id: loginRequestId });
    const database = new pg.Client({ connectionString: env.AUTH_DATABASE_URL });
    await database.connect();
    try {
      // The audit sink writes within its batch window.
      let rows: { event: string }[] = [];
      for (let i = 0; i < 20 && rows.length === 0; i++) {
        rows = (await database.query<{ event: string }>('select event from audit_events where request_id = $1', [loginRequestId])).rows;
        if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(rows).toEqual([{ event: 'login.password.success' }]);
    } finally {
      await database.end();
    }
  });

  it('every metric the alert rules and the dashboard name is served by the apps\' metrics ports', async () => {
    const served = new Set<string>();
    for (const instance of running.values()) {
      const text = await (await fetch(`http://127.0.0.1:${instance.metricsPort}/metrics`)).text();
      for (const match of text.matchAll(/^# TYPE (\S+) /gm)) served.add(match[1]!);
    }
    for (const name of ['gatehouse_build_info', 'gatehouse_signing_key_age_seconds', 'gatehouse_revocation_feed_lag_seconds', 'gatehouse_audit_events_dropped_total', 'gatehouse_audit_events_pending']) {
      expect(served).toContain(name);
    }
    const alerts = readFileSync(join(REPO_ROOT, 'deploy/prometheus/alerts.yml'), 'utf8');
    const alertExpressions = [...alerts.matchAll(/^\s+expr: (.+)$/gm)].map((m) => m[1]!);
    expect(alertExpressions.length).toBeGreaterThan(10);
    const dashboard = JSON.parse(readFileSync(join(REPO_ROOT, 'deploy/grafana/gatehouse.json'), 'utf8')) as { panels: { targets: { expr: string }[] }[] };
    const panelExpressions = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    expect(panelExpressions.length).toBeGreaterThan(10);
    const referenced = new Set([...alertExpressions, ...panelExpressions].flatMap(metricNames));
    expect([...referenced].filter((name) => !served.has(name))).toEqual([]);
    expect(referenced.size).toBeGreaterThan(10);
  });

  it('a backup restored into new databases: the same user, client and signing keys sign in', async () => {
    const backups = join(dir, 'backups');
    script('backup.sh', [backups], env);
    expect(readdirSync(backups).sort()).toEqual(['api.dump', 'auth.dump', 'client.dump']);
    script('create-databases.sh', [restored.auth, restored.api, restored.client], { ...env, ...superuser, DB_ROLE: role });
    script('restore.sh', [join(backups, 'auth.dump'), databaseUrl(fileUrls.auth, restored.auth)], env);
    script('restore.sh', [join(backups, 'api.dump'), databaseUrl(fileUrls.api, restored.api)], env);
    script('restore.sh', [join(backups, 'client.dump'), databaseUrl(fileUrls.client, restored.client)], env);
    // Restoring again over the restored data works too (--clean --if-exists).
    script('restore.sh', [join(backups, 'auth.dump'), databaseUrl(fileUrls.auth, restored.auth)], env);
    await stopApps();
    running.clear();
    await startApps(restored, ports);
    expect(await publishedKids()).toEqual(kidsBefore);
    const { tokens } = await signIn();
    expect(decodeProtectedHeader(tokens.id_token!).kid).toBe(signedInKid);
    expect(await apiClientToken()).toBe(200);
  });

  it('nothing but JSON lines on the instances\' stdout and stderr', () => {
    for (const [name, instance] of running) {
      const lines = `${instance.stdout}${instance.stderr}`.split('\n').filter((l) => l.trim() !== '');
      expect(lines.length, name).toBeGreaterThan(0);
      expect(lines.filter((l) => { try { return typeof JSON.parse(l) !== 'object'; } catch { return true; } }), name).toEqual([]);
    }
  });

  it('the guide runs these very scripts, and names each of them', () => {
    const guide = readFileSync(join(REPO_ROOT, 'deploy/README.md'), 'utf8');
    for (const name of readdirSync(SCRIPTS)) expect(guide).toContain(`deploy/scripts/${name}`);
  });
});
