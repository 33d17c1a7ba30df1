/**
 * `pnpm bench:instructions`: the CPU work per request counted in instructions (valgrind's
 * callgrind), Gatehouse against the same baselines as the suite, for a repeatable figure where
 * the throughput ratios of suite.ts move with the neighbours. Not a test, not timed.
 *
 *   cc       the token endpoint's client_credentials grant (auth on SQLite) against oidc-provider
 *            with its memory adapter (baselines/memory-provider.ts) and against its floor on
 *            SQLite (baselines/floor-adapter.ts)
 *   refresh  the refresh grant (auth on SQLite, one chain per connection, each from a real
 *            sign-in) against its floor on SQLite
 *   read     authorized `GET /api/movies/1` (API on SQLite) against bare Koa (baselines/bare-koa.ts)
 *
 * How: each measured server runs under `valgrind --tool=callgrind` with instrumentation off;
 * after a warm-up (its code optimised as in a long-running server), `callgrind_control` turns it
 * on for a fixed number of requests and dumps the counts, per thread. The main thread (the event
 * loop: JavaScript, the HTTP parser, SQLite) is printed apart from the other threads (V8's garbage
 * collection helpers, libuv's pool: the RSA signatures). Instructions executed in the kernel
 * (system calls) are not counted, and under valgrind the threads take turns on one core, so
 * more requests share an event-loop turn than without it: this complements the suite's ratios,
 * it does not replace them. Two runs of the same code differ a little, so compare counts of one
 * run (bench/README.md, "How it measures").
 *
 * Settings (environment): INSTR_ONLY (cc,read,refresh), INSTR_WARMUP (requests before counting, 3000),
 * INSTR_REQUESTS (counted, 2000), INSTR_CONNECTIONS (16), BENCH_NO_BUILD=1 (use the dist/ there is),
 * BENCH_KEEP=1 (keep the folder with the counts, logs and databases).
 * Needs valgrind (Debian's package `valgrind`). About 3 minutes for both parts on 2 cores.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpRequest, repeat, runLoad, type Script } from './load.ts';
import { refreshScript } from './parts/token-endpoint.ts';
import { basic, signIn } from './sign-in.ts';
import { buildApps, Processes } from './stack.ts';

const ONLY = new Set((process.env.INSTR_ONLY ?? 'cc,read,refresh').split(',').map((s) => s.trim()));
const WARMUP = Number(process.env.INSTR_WARMUP ?? 3000);
const REQUESTS = Number(process.env.INSTR_REQUESTS ?? 2000);
const CONNECTIONS = Number(process.env.INSTR_CONNECTIONS ?? 16);

for (const tool of ['valgrind', 'callgrind_control']) {
  if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).error) {
    console.error(`${tool} is not installed: apt-get install -y valgrind`);
    process.exit(2);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-instructions-'));
const counts = join(dir, 'callgrind');
// The scripts measured run under callgrind; every other one (authctl, migrations) runs as usual.
const MEASURED = ['apps/auth/dist/main.js', 'apps/api/dist/main.js', 'baselines/memory-provider.ts', 'baselines/bare-koa.ts'];
const wrapper = join(dir, 'node');
writeFileSync(
  wrapper,
  `#!/bin/sh
case "$*" in
${MEASURED.map((script) => `  *${script}*) exec valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes --callgrind-out-file=${counts}.%p --smc-check=all-non-file "${process.execPath}" "$@" ;;`).join('\n')}
esac
exec "${process.execPath}" "$@"
`,
);
chmodSync(wrapper, 0o755);

interface Target {
  readonly name: string;
  readonly port: number;
  readonly pid: number;
  /** What each connection sends (a fixed request, or a refresh chain). */
  readonly script: (index: number) => Script;
}

/** Instructions per request of one server: its main thread, and its other threads together. */
async function count(target: Target): Promise<{ main: number; others: number }> {
  await runLoad({ port: target.port, connections: CONNECTIONS, requests: WARMUP, script: target.script, reconnect: true });
  execFileSync('callgrind_control', ['--instr=on', String(target.pid)], { stdio: 'ignore' });
  const result = await runLoad({ port: target.port, connections: CONNECTIONS, requests: REQUESTS, script: target.script, reconnect: true });
  execFileSync('callgrind_control', ['--dump', String(target.pid)], { stdio: 'ignore' });
  execFileSync('callgrind_control', ['--instr=off', String(target.pid)], { stdio: 'ignore' });
  if (result.non2xx > 0) throw new Error(`${target.name}: ${result.non2xx} of ${result.requests} answers were not 2xx`);
  let main = 0;
  let others = 0;
  // The dump writes one file per thread: <out>.<pid>.1-<thread>; thread 1 is the main thread.
  for (const file of readdirSync(dir)) {
    const match = new RegExp(`^callgrind\\.${target.pid}\\.1-(\\d+)$`).exec(file);
    if (!match) continue;
    const total = Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'))?.[1] ?? 0);
    if (Number(match[1]) === 1) main += total;
    else others += total;
  }
  if (main === 0) throw new Error(`${target.name}: callgrind wrote no counts (is it running under valgrind?)`);
  return { main: main / result.requests, others: others / result.requests };
}

const k = (n: number) => `${Math.round(n / 1000)
  .toString()
  .padStart(6)}k`;
function report(name: string, subject: { main: number; others: number }, baseline: { main: number; others: number }): void {
  console.log(`${name}`);
  console.log(`  instructions per request   main thread  other threads      total`);
  console.log(`  gatehouse                  ${k(subject.main)}      ${k(subject.others)}    ${k(subject.main + subject.others)}`);
  console.log(`  baseline                   ${k(baseline.main)}      ${k(baseline.others)}    ${k(baseline.main + baseline.others)}`);
  console.log(`  baseline / gatehouse       ${(baseline.main / subject.main).toFixed(3).padStart(7)}      ${(baseline.others / subject.others).toFixed(3).padStart(7)}    ${((baseline.main + baseline.others) / (subject.main + subject.others)).toFixed(3).padStart(7)}`);
}

console.log(`Node ${process.version}; ${WARMUP} requests of warm-up, ${REQUESTS} counted, ${CONNECTIONS} connections`);
if (!process.env.BENCH_NO_BUILD) buildApps();
const processes = new Processes(dir, { node: wrapper, keepDatabases: Boolean(process.env.BENCH_KEEP) });
try {
  const stack = await processes.startEngine('sqlite', 1);
  if (ONLY.has('cc')) {
    const grant = (port: number, secret: string, clientId: string) =>
      repeat(httpRequest(port, 'POST', '/oauth2/v1/token', { Authorization: basic(clientId, secret), 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, `grant_type=client_credentials&scope=${encodeURIComponent('movies:read')}`));
    const subject = await count({ name: 'auth', port: stack.auth.port, pid: stack.auth.child.pid!, script: grant(stack.auth.port, stack.machine.clientSecret, stack.machine.clientId) });
    const provider = await processes.fork<{ port: number; secrets: { api: string } }>('memory-provider', './baselines/memory-provider.ts', ['1', stack.audience]);
    const baseline = await count({ name: 'memory provider', port: provider.message.port, pid: provider.child.pid!, script: grant(provider.message.port, provider.message.secrets.api, 'api') });
    report('token endpoint, client_credentials (sqlite) vs oidc-provider with its memory adapter', subject, baseline);
    const floor = await processes.fork<{ port: number; secrets: { api: string } }>('floor-client', './baselines/memory-provider.ts', ['1', stack.audience, `sqlite:${join(dir, 'floor-client.db')}`, 'client']);
    const floorCount = await count({ name: 'client floor', port: floor.message.port, pid: floor.child.pid!, script: grant(floor.message.port, floor.message.secrets.api, 'api') });
    report('token endpoint, client_credentials (sqlite) vs its floor (bench/README.md, "Token path")', subject, floorCount);
  }
  if (ONLY.has('refresh')) {
    // A stack of its own: each measured process is counted once (callgrind's counts of a second
    // dump of the same process are not per thread what they are in the first).
    const own = await processes.startEngine('sqlite', CONNECTIONS, 'sqlite-refresh');
    const chains = await Promise.all(own.users.map((user) => signIn(own, user)));
    const subject = await count({ name: 'auth', port: own.auth.port, pid: own.auth.child.pid!, script: refreshScript({ port: own.auth.port, app: own.app, chains }) });
    const floor = await processes.fork<{ port: number; secrets: { app: string }; refreshTokens: string[] }>('floor-refresh', './baselines/memory-provider.ts', [String(CONNECTIONS), stack.audience, `sqlite:${join(dir, 'floor-refresh.db')}`, 'refresh']);
    const app = { clientId: 'app', clientSecret: floor.message.secrets.app };
    const baseline = await count({ name: 'refresh floor', port: floor.message.port, pid: floor.child.pid!, script: refreshScript({ port: floor.message.port, app, chains: floor.message.refreshTokens }) });
    report('token endpoint, refresh grant (sqlite) vs its floor (bench/README.md, "Token path")', subject, baseline);
  }
  if (ONLY.has('read')) {
    const tokenAnswer = await fetch(`${stack.auth.url}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(stack.machine.clientId, stack.machine.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'movies:read movies:write' }),
    });
    const access = ((await tokenAnswer.json()) as { access_token: string }).access_token;
    const auth = { authorization: `Bearer ${access}` };
    const seeded = await fetch(`${stack.api.url}/api/movies`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ id: 1, title: 'Alien' }) });
    if (seeded.status !== 201) throw new Error(`seeding the API answered ${seeded.status}`);
    const body = await (await fetch(`${stack.api.url}/api/movies/1`, { headers: auth })).text();
    const bare = await processes.fork<{ port: number }>('bare-koa', './baselines/bare-koa.ts', [body]);
    const headers = { Authorization: `Bearer ${access}`, Accept: 'application/json' };
    const subject = await count({ name: 'api', port: stack.api.port, pid: stack.api.child.pid!, script: repeat(httpRequest(stack.api.port, 'GET', '/api/movies/1', headers)) });
    const baseline = await count({ name: 'bare koa', port: bare.message.port, pid: bare.child.pid!, script: repeat(httpRequest(bare.message.port, 'GET', '/api/movies/1', headers)) });
    report('API read, GET /api/movies/1 (sqlite) vs bare Koa', subject, baseline);
  }
} finally {
  await processes.stop();
  if (process.env.BENCH_KEEP) console.log(`kept: ${dir} (callgrind.<pid>.1-<thread>: callgrind_annotate reads them)`);
  else rmSync(dir, { recursive: true, force: true });
}
