/**
 * `pnpm bench`: Gatehouse against baselines, side by side, in one interleaved run.
 * Not a test: it is not part of `pnpm test`. It exits 1 when a budget is missed.
 *
 *   1. API read: authorized `GET /api/movies/1` against bare Koa + @koa/router answering the
 *      same JSON from memory.                                              budget ≥ 0.80×
 *   2. API write: `POST` + `DELETE` of an item on SQLite and PostgreSQL against raw node:sqlite
 *      / pg insert + delete from this process.                              reported
 *   3. Token endpoint: refresh grant (rotating) and client_credentials, on SQLite and
 *      PostgreSQL, against oidc-provider with its memory adapter.          budget ≥ 0.80×
 *      And the refresh floor on PostgreSQL: that baseline with its refresh tokens stored in
 *      PostgreSQL with the least work a durable rotation needs, against the same baseline.  reported
 *   4. Login: the password step against argon2id verifications with the same parameters and
 *      concurrency, measured here.                                         budget ≥ 0.85×
 *   5. Memory: RSS of each app (production build), idle and after the load. budget ≤ 120 MB idle
 *
 * Every Gatehouse process runs as production does (built `dist/`, NODE_ENV=production, logs at
 * info), see stack.ts. Loopback only; every loop is bounded by time or count. On 2 shared cores
 * the figures move with the neighbours: each comparison alternates its two sides round by round
 * and reports the median of paired ratios (paired.ts), and the load average is printed.
 *
 * Settings (environment): BENCH_SECONDS per side and round (default 2), BENCH_ROUNDS (default 8),
 * BENCH_CONNECTIONS (default 32, reads and writes), BENCH_TOKEN_CONNECTIONS (default 16),
 * BENCH_LOGINS per round (default 48), BENCH_LOGIN_CONCURRENCY (default 8), BENCH_ONLY (a comma
 * list of read,write,token,login; refresh or cc for one grant of the token endpoint; `none` for
 * memory only), BENCH_NO_BUILD=1 (use the dist/ there is), BENCH_CPU_PROF (a folder: every server
 * process writes a V8 CPU profile there on exit), BENCH_NODE_OPTIONS (NODE_OPTIONS of the Gatehouse
 * processes, to try runtime flags), BENCH_KEEP=1 (keep the logs and databases).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import argon2 from 'argon2';
import pg from 'pg';
import { httpRequest, repeat, runLoad, type Script } from './load.ts';
import { compare, type Comparison } from './paired.ts';
import { basic, passwordStepRequest, prepareLogin, signIn } from './sign-in.ts';
import { buildApps, cpuMicros, metricsUrl, postgresCpuMicros, Processes, rssMb, type Engine, type EngineStack, type Server } from './stack.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const TOKEN_CONNECTIONS = Number(process.env.BENCH_TOKEN_CONNECTIONS ?? 16);
const LOGINS = Number(process.env.BENCH_LOGINS ?? 48);
const LOGIN_CONCURRENCY = Number(process.env.BENCH_LOGIN_CONCURRENCY ?? 8);
const LOGIN_WARMUPS = Number(process.env.BENCH_LOGIN_WARMUPS ?? 4);
const ONLY = new Set((process.env.BENCH_ONLY ?? 'read,write,token,login').split(',').map((s) => s.trim()));
const RSS_BUDGET_MB = 120;
const durationMs = SECONDS * 1000;

const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const log = (line: string) => console.log(line);
const fmt = (n: number) => Math.round(n).toString().padStart(7);

/** CPU time a server spent per operation, summed over a comparison's rounds (neighbours barely move it). */
class CpuMeter {
  micros = 0;
  ops = 0;
  /** PostgreSQL's CPU in the same rounds, when this side stores in PostgreSQL. */
  postgresMicros: number | undefined;
  constructor(engine?: Engine) {
    if (engine === 'postgres') this.postgresMicros = 0;
  }
  perOp(): number {
    return this.micros / Math.max(1, this.ops);
  }
  reset(): void {
    this.micros = this.ops = 0;
    if (this.postgresMicros !== undefined) this.postgresMicros = 0;
  }
}

/** Fails the run on a non-2xx answer: a benchmark of errors measures nothing. */
async function measure(server: { port: number; pid: number; cpu: CpuMeter }, connections: number, script: (i: number) => Script, perOperation = 1): Promise<number> {
  const before = cpuMicros(server.pid);
  const postgresBefore = server.cpu.postgresMicros === undefined ? 0 : postgresCpuMicros();
  const result = await runLoad({ port: server.port, connections, durationMs, script });
  server.cpu.micros += cpuMicros(server.pid) - before;
  if (server.cpu.postgresMicros !== undefined) server.cpu.postgresMicros += postgresCpuMicros() - postgresBefore;
  server.cpu.ops += result.requests / perOperation;
  if (result.non2xx > 0) throw new Error(`${result.non2xx} of ${result.requests} responses on port ${server.port} were not 2xx`);
  return result.perSecond / perOperation;
}

/** Server CPU per operation of both sides, for the summary. */
const cpuNotes = new Map<string, string>();
const cpuNote = (name: string, subject: CpuMeter, baseline: CpuMeter | undefined) =>
  cpuNotes.set(
    name,
    `server CPU/op ${subject.perOp().toFixed(0)} µs${baseline ? ` vs ${baseline.perOp().toFixed(0)} µs` : ''}` +
      (subject.postgresMicros === undefined ? '' : `; PostgreSQL CPU/op ${(subject.postgresMicros / Math.max(1, subject.ops)).toFixed(0)} µs`),
  );

function roundLogger(name: string, unit: string) {
  return (round: number, subject: number, baseline: number) =>
    log(`  ${name.padEnd(34)} round ${String(round).padStart(2)}: gatehouse ${fmt(subject)} ${unit}  baseline ${fmt(baseline)} ${unit}  ratio ${(subject / baseline).toFixed(3)}`);
}

async function token(stack: EngineStack, scope: string): Promise<string> {
  const response = await fetch(`${stack.auth.url}/oauth2/v1/token`, {
    method: 'POST',
    headers: { authorization: basic(stack.machine.clientId, stack.machine.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`client_credentials answered ${response.status}: ${JSON.stringify(body)}`);
  return body.access_token;
}

// ── 1. API read ──────────────────────────────────────────────────────────────────────────────
async function apiRead(processes: Processes, stack: EngineStack): Promise<Comparison> {
  const access = await token(stack, 'movies:read movies:write');
  const seeded = await fetch(`${stack.api.url}/api/movies`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 1, title: 'Alien' }),
  });
  if (seeded.status !== 201) throw new Error(`seeding the API answered ${seeded.status}: ${await seeded.text()}`);
  const read = await fetch(`${stack.api.url}/api/movies/1`, { headers: { authorization: `Bearer ${access}` } });
  const body = await read.text();
  if (read.status !== 200) throw new Error(`GET /api/movies/1 answered ${read.status}: ${body}`);
  const bare = await processes.fork<{ port: number }>('bare-koa', './baselines/bare-koa.ts', [body]);
  const check = await fetch(`http://127.0.0.1:${bare.message.port}/api/movies/1`);
  if ((await check.text()) !== body) throw new Error('the bare Koa baseline does not answer the same body');
  const headers = { Authorization: `Bearer ${access}`, Accept: 'application/json' };
  const api = { port: stack.api.port, pid: stack.api.child.pid!, cpu: new CpuMeter(stack.engine) };
  const koa = { port: bare.message.port, pid: bare.child.pid!, cpu: new CpuMeter() };
  const result = await compare({
    name: 'API GET /api/movies/1 vs bare Koa',
    subject: () => measure(api, CONNECTIONS, repeat(httpRequest(api.port, 'GET', '/api/movies/1', headers))),
    baseline: () => measure(koa, CONNECTIONS, repeat(httpRequest(koa.port, 'GET', '/api/movies/1', headers))),
    rounds: ROUNDS,
    budget: 0.8,
    onRound: roundLogger('API read (sqlite)', 'req/s'),
  });
  cpuNote(result.name, api.cpu, koa.cpu);
  return result;
}

// ── 2. API write ─────────────────────────────────────────────────────────────────────────────
let nextId = 1_000_000;
async function apiWrite(stack: EngineStack): Promise<Comparison> {
  const access = await token(stack, 'movies:read movies:write');
  const auth = { Authorization: `Bearer ${access}`, Accept: 'application/json' };
  // Each connection creates an item, then deletes it: one operation is the pair.
  const script = (): Script => {
    let pending: number | undefined;
    return {
      next() {
        if (pending === undefined) {
          pending = nextId++;
          return httpRequest(stack.api.port, 'POST', '/api/movies', { ...auth, 'Content-Type': 'application/json' }, JSON.stringify({ id: pending, title: `Movie ${pending}` }));
        }
        const id = pending;
        pending = undefined;
        return httpRequest(stack.api.port, 'DELETE', `/api/movies/${id}`, auth);
      },
    };
  };
  const raw = await rawWriter(stack);
  const api = { port: stack.api.port, pid: stack.api.child.pid!, cpu: new CpuMeter(stack.engine) };
  try {
    const result = await compare({
      name: `API POST+DELETE vs raw ${stack.engine === 'sqlite' ? 'node:sqlite' : 'pg'} (${stack.engine})`,
      subject: () => measure(api, CONNECTIONS, script, 2),
      baseline: raw.measure,
      rounds: ROUNDS,
      onRound: roundLogger(`API write (${stack.engine})`, 'op/s'),
    });
    cpuNote(result.name, api.cpu, undefined);
    return result;
  } finally {
    await raw.close();
  }
}

/** insert + delete of the same row shape, straight on the API's database, from this process. */
async function rawWriter(stack: EngineStack): Promise<{ measure: () => Promise<number>; close: () => Promise<void> }> {
  const data = (id: number) => JSON.stringify({ title: `Movie ${id}` });
  if (stack.engine === 'sqlite') {
    const db = new DatabaseSync(stack.databaseUrl.api.slice('sqlite:'.length));
    db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000;');
    const insert = db.prepare('insert into api_items (collection, id, data, created_at, updated_at) values (?, ?, ?, ?, ?) on conflict (collection, id) do nothing');
    const remove = db.prepare('delete from api_items where collection = ? and id = ?');
    return {
      measure: async () => {
        const started = performance.now();
        let ops = 0;
        while (performance.now() - started < durationMs) {
          const id = nextId++;
          const now = Date.now();
          if (insert.run('movies', id, data(id), now, now).changes !== 1) throw new Error('raw insert failed');
          if (remove.run('movies', id).changes !== 1) throw new Error('raw delete failed');
          ops++;
          // Yield now and then, as a server would between requests.
          if (ops % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
        }
        return ops / ((performance.now() - started) / 1000);
      },
      close: async () => db.close(),
    };
  }
  const pool = new pg.Pool({ connectionString: stack.databaseUrl.api, max: 10 });
  return {
    measure: async () => {
      const started = performance.now();
      let ops = 0;
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (performance.now() - started < durationMs) {
            const id = nextId++;
            const now = Date.now();
            const inserted = await pool.query({ name: 'ins', text: 'insert into api_items (collection, id, data, created_at, updated_at) values ($1, $2, $3, $4, $5) on conflict (collection, id) do nothing', values: ['movies', id, data(id), now, now] });
            const removed = await pool.query({ name: 'del', text: 'delete from api_items where collection = $1 and id = $2', values: ['movies', id] });
            if (inserted.rowCount !== 1 || removed.rowCount !== 1) throw new Error('raw insert/delete failed');
            ops++;
          }
        }),
      );
      return ops / ((performance.now() - started) / 1000);
    },
    close: () => pool.end(),
  };
}

// ── 3. Token endpoint ────────────────────────────────────────────────────────────────────────
interface TokenTarget {
  readonly port: number;
  readonly pid: number;
  readonly cpu: CpuMeter;
  readonly app: { clientId: string; clientSecret: string };
  readonly machine: { clientId: string; clientSecret: string };
  /** The current refresh token of each chain (rotation replaces it on every answer). */
  readonly chains: string[];
}

function refreshScript(target: TokenTarget) {
  const auth = basic(target.app.clientId, target.app.clientSecret);
  return (i: number): Script => ({
    next: () =>
      httpRequest(target.port, 'POST', '/oauth2/v1/token', { Authorization: auth, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, `grant_type=refresh_token&refresh_token=${encodeURIComponent(target.chains[i]!)}`),
    onResponse(status, body) {
      const answer = JSON.parse(body.toString('utf8')) as { refresh_token?: string; access_token?: string; id_token?: string };
      if (status !== 200 || !answer.refresh_token || !answer.access_token || !answer.id_token) throw new Error(`refresh grant on port ${target.port} answered ${status}: ${body.toString('utf8')}`);
      target.chains[i] = answer.refresh_token;
    },
  });
}

function clientCredentialsScript(target: TokenTarget) {
  const request = httpRequest(
    target.port,
    'POST',
    '/oauth2/v1/token',
    { Authorization: basic(target.machine.clientId, target.machine.clientSecret), 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    `grant_type=client_credentials&scope=${encodeURIComponent('movies:read')}`,
  );
  return repeat(request);
}

/**
 * The memory baseline with its refresh tokens stored in `databaseUrl` (PostgreSQL) with the least
 * work a durable rotation needs: the floor of the refresh grant on that engine.
 */
async function floorProvider(processes: Processes, audience: string, databaseUrl: string): Promise<TokenTarget> {
  const floor = await processes.fork<{ port: number; secrets: { app: string; api: string }; refreshTokens: string[] }>('floor-provider', './baselines/memory-provider.ts', [String(TOKEN_CONNECTIONS), audience, databaseUrl]);
  return {
    port: floor.message.port,
    pid: floor.child.pid!,
    cpu: new CpuMeter('postgres'),
    app: { clientId: 'app', clientSecret: floor.message.secrets.app },
    machine: { clientId: 'api', clientSecret: floor.message.secrets.api },
    chains: floor.message.refreshTokens,
  };
}

async function tokenEndpoint(stack: EngineStack, baseline: TokenTarget, floor?: TokenTarget): Promise<Comparison[]> {
  const results: Comparison[] = [];
  const chains = ONLY.has('token') || ONLY.has('refresh') ? await Promise.all(stack.users.slice(0, TOKEN_CONNECTIONS).map((user) => signIn(stack, user))) : [];
  const subject: TokenTarget = { port: stack.auth.port, pid: stack.auth.child.pid!, cpu: new CpuMeter(stack.engine), app: stack.app, machine: stack.machine, chains };
  baseline.cpu.reset();
  if (ONLY.has('token') || ONLY.has('refresh')) {
    const refresh = await compare({
      name: `token: refresh grant (${stack.engine}) vs memory adapter`,
      subject: () => measure(subject, TOKEN_CONNECTIONS, refreshScript(subject)),
      baseline: () => measure(baseline, TOKEN_CONNECTIONS, refreshScript(baseline)),
      rounds: ROUNDS,
      budget: 0.8,
      onRound: roundLogger(`refresh grant (${stack.engine})`, 'req/s'),
    });
    cpuNote(refresh.name, subject.cpu, baseline.cpu);
    results.push(refresh);
  }
  if (floor && (ONLY.has('token') || ONLY.has('refresh'))) {
    // What any server storing its refresh tokens in this PostgreSQL could reach (postgres-refresh-tokens.ts).
    baseline.cpu.reset();
    const bound = await compare({
      name: `token: refresh floor (${stack.engine}) vs memory adapter`,
      subject: () => measure(floor, TOKEN_CONNECTIONS, refreshScript(floor)),
      baseline: () => measure(baseline, TOKEN_CONNECTIONS, refreshScript(baseline)),
      rounds: ROUNDS,
      onRound: roundLogger(`refresh floor (${stack.engine})`, 'req/s'),
    });
    cpuNote(bound.name, floor.cpu, baseline.cpu);
    results.push(bound);
  }
  subject.cpu.reset();
  baseline.cpu.reset();
  if (!(ONLY.has('token') || ONLY.has('cc'))) return results;
  const cc = await compare({
    name: `token: client_credentials (${stack.engine}) vs memory adapter`,
    subject: () => measure(subject, TOKEN_CONNECTIONS, clientCredentialsScript(subject)),
    baseline: () => measure(baseline, TOKEN_CONNECTIONS, clientCredentialsScript(baseline)),
    rounds: ROUNDS,
    budget: 0.8,
    onRound: roundLogger(`client_credentials (${stack.engine})`, 'req/s'),
  });
  cpuNote(cc.name, subject.cpu, baseline.cpu);
  results.push(cc);
  return results;
}

// ── 4. Login ─────────────────────────────────────────────────────────────────────────────────
// apps/auth/src/accounts/password.ts: argon2id, 19 MiB, 2 passes, 1 lane.
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

async function pool(count: number, concurrency: number, job: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await job(next++);
  }));
  return count / ((performance.now() - started) / 1000);
}

async function login(stack: EngineStack): Promise<Comparison> {
  const password = 'correct horse battery staple';
  const hash = await argon2.hash(password, ARGON2_OPTIONS);
  return compare({
    name: `login password step (${stack.engine}) vs argon2id verify`,
    subject: async () => {
      // The authorization requests are prepared first and not measured.
      const prepared = await Promise.all(Array.from({ length: LOGINS }, () => prepareLogin(stack)));
      const requests = prepared.map((p, i) => passwordStepRequest(stack, p, stack.users[i % stack.users.length]!));
      // Sent by the load generator over LOGIN_CONCURRENCY keep-alive connections, not by fetch:
      // on 2 shared cores a heavier client would be counted against the server.
      let next = 0;
      const result = await runLoad({
        port: stack.auth.port,
        connections: LOGIN_CONCURRENCY,
        requests: LOGINS,
        script: () => ({
          next: () => requests[next++]!,
          onResponse: (status, body) => {
            if (status !== 200) throw new Error(`password step answered ${status}: ${body.toString()}`);
          },
        }),
      });
      return result.perSecond;
    },
    baseline: () =>
      pool(LOGINS, LOGIN_CONCURRENCY, async () => {
        if (!(await argon2.verify(hash, password))) throw new Error('argon2 verify failed');
      }),
    rounds: ROUNDS,
    // A password step runs about 60 times a second: one warm-up of LOGINS (under a second) leaves
    // its code in V8's first tiers, where no long-running server keeps it; four bring it to the
    // state the other comparisons measure after their two seconds of warm-up.
    warmups: LOGIN_WARMUPS,
    budget: 0.85,
    onRound: roundLogger(`login (${stack.engine})`, 'req/s'),
  });
}

// ── 5. Memory ────────────────────────────────────────────────────────────────────────────────
function memory(servers: Record<string, Server>): Record<string, number> {
  return Object.fromEntries(Object.entries(servers).map(([name, s]) => [name, rssMb(s.child.pid!)]));
}

/** The V8 heap in use, from the process's own metrics (prom-client's nodejs_heap_size_used_bytes), MB. */
async function heapUsedMb(server: Server): Promise<number | undefined> {
  const url = metricsUrl(server);
  if (!url) return undefined;
  const text = await (await fetch(url)).text();
  const value = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)/m.exec(text)?.[1];
  return value === undefined ? undefined : Number(value) / 1048576;
}

// ── the run ──────────────────────────────────────────────────────────────────────────────────
log(`Node ${process.version}, ${cpus().length} CPUs, load average ${load()} (start)`);
log(`${SECONDS} s per side and round, ${ROUNDS} rounds per comparison, ${CONNECTIONS} connections (API), ${TOKEN_CONNECTIONS} (token endpoint), ${LOGINS} logins × ${LOGIN_CONCURRENCY} concurrent per round`);
if (!process.env.BENCH_NO_BUILD) buildApps();
const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
const processes = new Processes(dir);
const comparisons: Comparison[] = [];
let failed = false;
try {
  const sqlite = await processes.startEngine('sqlite', TOKEN_CONNECTIONS);
  const postgres = await processes.startEngine('postgres', TOKEN_CONNECTIONS);
  const client = await processes.startClient(sqlite);
  const servers = { 'auth (sqlite)': sqlite.auth, 'api (sqlite)': sqlite.api, client, 'auth (postgres)': postgres.auth, 'api (postgres)': postgres.api };
  // Idle: started, ready, and left alone for a moment (no request but the readiness probe).
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const idle = memory(servers);

  if (ONLY.has('read')) comparisons.push(await apiRead(processes, sqlite));
  if (ONLY.has('write')) for (const stack of [sqlite, postgres]) comparisons.push(await apiWrite(stack));
  if (ONLY.has('token') || ONLY.has('refresh') || ONLY.has('cc')) {
    const provider = await processes.fork<{ port: number; secrets: { app: string; api: string }; refreshTokens: string[] }>('memory-provider', './baselines/memory-provider.ts', [String(TOKEN_CONNECTIONS), sqlite.audience]);
    const baseline: TokenTarget = {
      port: provider.message.port,
      pid: provider.child.pid!,
      cpu: new CpuMeter(),
      app: { clientId: 'app', clientSecret: provider.message.secrets.app },
      machine: { clientId: 'api', clientSecret: provider.message.secrets.api },
      chains: provider.message.refreshTokens,
    };
    comparisons.push(...(await tokenEndpoint(sqlite, baseline)));
    const floor = ONLY.has('token') || ONLY.has('refresh') ? await floorProvider(processes, sqlite.audience, postgres.databaseUrl.auth) : undefined;
    comparisons.push(...(await tokenEndpoint(postgres, baseline, floor)));
  }
  if (ONLY.has('login')) comparisons.push(await login(sqlite));
  // The client gets its own short load: its landing page.
  await runLoad({ port: client.port, connections: 8, durationMs, script: repeat(httpRequest(client.port, 'GET', '/', { Accept: 'text/html' })) });
  const loaded = memory(servers);
  const heap = Object.fromEntries(await Promise.all(Object.entries(servers).map(async ([name, server]) => [name, await heapUsedMb(server)] as const)));

  log('');
  log(`Results (load average ${load()}; medians of ${2 * Math.ceil(ROUNDS / 2) / 2} round-pair ratios)`);
  for (const c of comparisons) {
    const miss = c.budget !== undefined && c.ratio < c.budget;
    failed ||= miss;
    const budget = c.budget === undefined ? 'reported' : `budget ≥ ${c.budget.toFixed(2)}× ${miss ? 'MISSED' : 'ok'}`;
    log(`  ${c.name.padEnd(56)} ${fmt(c.subject)} vs ${fmt(c.baseline)} /s  ratio ${c.ratio.toFixed(3)}×  ${budget}`);
    log(`  ${''.padEnd(56)} pairs ${c.pairs.map((p) => p.toFixed(2)).join(' ')}${cpuNotes.has(c.name) ? `; ${cpuNotes.get(c.name)}` : ''}`);
  }
  log('  memory (RSS, MB)                                         idle   after load (V8 heap in use)');
  for (const name of Object.keys(servers)) {
    const miss = idle[name]! > RSS_BUDGET_MB;
    failed ||= miss;
    const heapNote = heap[name] === undefined ? '' : ` (${heap[name]!.toFixed(1)})`;
    log(`  ${name.padEnd(56)} ${idle[name]!.toFixed(1).padStart(5)} ${loaded[name]!.toFixed(1).padStart(8)}${heapNote.padEnd(9)} budget ≤ ${RSS_BUDGET_MB} MB idle ${miss ? 'MISSED' : 'ok'}`);
  }
  log(`load average at the end: ${load()}`);
} finally {
  await processes.stop();
  if (!process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
  else log(`logs and databases kept in ${dir}`);
}
process.exitCode = failed ? 1 : 0;
