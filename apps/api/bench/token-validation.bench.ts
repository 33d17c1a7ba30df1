/**
 * What token validation costs: authorized `GET /api/movies/1` with a real access token from
 * apps/auth against the same route with validation switched off, in one run.
 *
 * Both APIs run in their own process on a random loopback port; the load generator (this
 * process) drives one, then the other, back to back, for many short rounds (the order flips
 * every round). Every response must be 200, or the run fails.
 *
 * On a shared machine throughput swings with whatever else runs, by more than the effect
 * measured. So besides the overall req/s of each variant, every round yields its own on/off
 * ratio from two measurements seconds apart. The variant measured second in a round runs
 * measurably slower (the idle process collects its garbage meanwhile), and the order flips every
 * round, so two consecutive rounds are combined by their geometric mean, which cancels that
 * bias; the budget is checked on the median of these pair ratios, which slow drift and a few
 * disturbed rounds do not move. The API process's own CPU time per request is printed as a
 * cross-check, and the load average so a reader can judge. Last, the token path alone (header
 * parsing, verified-token cache lookup, scope check) is timed in this process on the same
 * token, which no neighbour can blur much, and set against the CPU a request costs without it.
 *
 * Settings (environment): BENCH_SECONDS per variant and round (default 2), BENCH_ROUNDS
 * (default 16, rounded up to even), BENCH_CONNECTIONS (default 32), BENCH_MAX_COST (default 0.15, exit 1 above it),
 * BENCH_CPU_PROF (a folder for V8 CPU profiles of the two API processes).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { startTestAuthServer } from '@gatehouse/auth/testing';
import { createApp } from '../src/app.ts';
import { bearerToken } from '../src/auth/bearer.ts';
import { loadApiDefinition } from '../src/collections/collection-config.ts';
import { loadConfig } from '../src/config/config.ts';
import { openApiDatabase } from '../src/storage/open-api-database.ts';
import { httpRequest, repeat, runLoad, type LoadResult } from '@gatehouse/bench/load';

const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const rounds = 2 * Math.ceil(Number(process.env.BENCH_ROUNDS ?? 16) / 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const maxCost = Number(process.env.BENCH_MAX_COST ?? 0.15);
const mode = process.env.BENCH_MODE === 'parallel' ? 'parallel' : 'alternate';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
const auth = await startTestAuthServer();
const children: ChildProcess[] = [];

interface Usage {
  cpuMicros: number;
  served: number;
}
function usage(child: ChildProcess): Promise<Usage> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as Usage));
    child.send('usage');
  });
}

async function startApi(validation: 'on' | 'off'): Promise<{ port: number; child: ChildProcess }> {
  const child = fork(fileURLToPath(new URL('./serve-api.ts', import.meta.url)), [validation], {
    env: {
      ...process.env,
      AUTH_ISSUER: auth.issuer,
      API_AUDIENCE: auth.audience,
      API_DATABASE_URL: `sqlite:${join(dir, 'api.db')}`,
      // The revocation feed (and its introspection fallback) sign in as the test server's API client.
      API_INTROSPECTION_CLIENT_ID: auth.introspectionClient.clientId,
      API_INTROSPECTION_CLIENT_SECRET: auth.introspectionClient.clientSecret,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each API process there.
    execArgv: process.env.BENCH_CPU_PROF ? [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, `--cpu-prof-name=api-${validation}.cpuprofile`] : process.execArgv,
  });
  children.push(child);
  return await new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ port: (m as { port: number }).port, child }));
    child.once('exit', (code) => reject(new Error(`API (${validation}) exited with ${code}`)));
  });
}

/** Times what validation adds to a request once the token is cached, in this process. */
async function timeTokenPath(token: string): Promise<number> {
  const config = loadConfig({
    AUTH_ISSUER: auth.issuer,
    API_AUDIENCE: auth.audience,
    API_DATABASE_URL: 'sqlite::memory:',
    LOG_LEVEL: 'silent',
    // Only the token path is timed here: no revocation feed runs in this process to keep fresh.
    API_REVOCATION_FEED: 'false',
  });
  const database = await openApiDatabase(config.databaseUrl);
  try {
    const app = createApp(config, {
      database,
      definition: loadApiDefinition(config.collectionsFile),
      clock: Date.now,
      fetch: globalThis.fetch,
      logger: pino({ level: 'silent' }),
    });
    const header = `Bearer ${token}`;
    await app.authenticator.authenticate(token);
    let best = Infinity;
    for (let round = 0; round < 5; round++) {
      const n = 200_000;
      const started = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        // A fresh string per request, as the HTTP parser hands over.
        const principal = await app.authenticator.authenticate(bearerToken(` ${header}`.slice(1), false, config.realm));
        if (!principal.scopes.has('movies:read')) throw new Error('scope lost');
      }
      const used = process.cpuUsage(started);
      best = Math.min(best, (used.user + used.system) / n);
    }
    return best;
  } finally {
    await database.close();
  }
}

try {
  const token = (await auth.login({ scope: 'movies:read movies:write' })).access_token;
  const onApi = await startApi('on');
  const offApi = await startApi('off');
  const seed = await fetch(`http://127.0.0.1:${onApi.port}/api/movies`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 1, title: 'Alien' }),
  });
  if (seed.status !== 201) throw new Error(`seeding answered ${seed.status}: ${await seed.text()}`);

  const variants = {
    on: { port: onApi.port, child: onApi.child, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } },
    off: { port: offApi.port, child: offApi.child, headers: { Accept: 'application/json' } },
  } as const;
  const run = async (v: keyof typeof variants, durationMs: number) => {
    const { port, headers, child } = variants[v];
    const before = await usage(child);
    const result = await runLoad({ port, connections, durationMs, script: repeat(httpRequest(port, 'GET', '/api/movies/1', headers)) });
    const after = await usage(child);
    return { ...result, cpuMicros: after.cpuMicros - before.cpuMicros, served: after.served - before.served };
  };

  console.log(
    `Node ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ` +
      `${connections} connections per API, ${rounds} × ${seconds} s per variant (${mode}), GET /api/movies/1`,
  );
  await run('off', 2_000);
  await run('on', 2_000);
  type Round = LoadResult & Usage;
  const results: Record<'on' | 'off', Round[]> = { on: [], off: [] };
  const roundRatios: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const round: Partial<Record<'on' | 'off', Round>> = {};
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (mode === 'parallel') {
      [round.off, round.on] = await Promise.all([run('off', seconds * 1000), run('on', seconds * 1000)]);
    } else {
      for (const v of i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        round[v] = await run(v, seconds * 1000);
      }
    }
    for (const v of ['off', 'on'] as const) {
      if (round[v]!.non2xx > 0) throw new Error(`${round[v]!.non2xx} responses of the "${v}" run were not 2xx`);
      results[v].push(round[v]!);
    }
    const ratio = round.on!.perSecond / round.off!.perSecond;
    roundRatios.push(ratio);
    const fmt = (r: Round) =>
      `${Math.round(r.perSecond).toString().padStart(6)} req/s ${(r.cpuMicros / r.served).toFixed(0).padStart(4)} µs CPU/req` +
      (mode === 'alternate' ? ` (client ${r.clientCpuPerRequest.toFixed(0)})` : '');
    console.log(`  round ${String(i + 1).padStart(2)}  off ${fmt(round.off!)}  on ${fmt(round.on!)}  on/off ${ratio.toFixed(3)}`);
  }
  const throughput = (rs: Round[]) => rs.reduce((n, r) => n + r.requests, 0) / rs.reduce((n, r) => n + r.seconds, 0);
  const cpuPerRequest = (rs: Round[]) => rs.reduce((n, r) => n + r.cpuMicros, 0) / rs.reduce((n, r) => n + r.served, 0);
  const on = throughput(results.on);
  const off = throughput(results.off);
  const pairRatios = roundRatios.flatMap((r, i) => (i % 2 === 1 ? [Math.sqrt(roundRatios[i - 1]! * r)] : []));
  const sorted = [...pairRatios].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const ratio = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const cpuOn = cpuPerRequest(results.on);
  const cpuOff = cpuPerRequest(results.off);
  const cpuRatio = cpuOff / cpuOn;
  const pct = (r: number) => `${((1 - r) * 100).toFixed(1)}%`;
  console.log(`validation off: ${Math.round(off)} req/s, ${cpuOff.toFixed(1)} µs CPU per request`);
  console.log(`validation on:  ${Math.round(on)} req/s, ${cpuOn.toFixed(1)} µs CPU per request (real RS256 at+jwt from apps/auth)`);
  console.log(`ratio on/off, overall req/s:          ${(on / off).toFixed(3)}`);
  console.log(`ratio on/off, 1 / CPU per request:    ${cpuRatio.toFixed(3)} (cost ${pct(cpuRatio)})`);
  console.log(`ratio on/off, median of ${pairRatios.length} round pairs: ${ratio.toFixed(3)} → validation costs ${pct(ratio)} of throughput (budget ${(maxCost * 100).toFixed(0)}%)`);
  const pathMicros = await timeTokenPath(token);
  console.log(
    `token path in-process:                ${pathMicros.toFixed(2)} µs per request = ${((pathMicros / cpuOff) * 100).toFixed(1)}% of the ` +
      `${cpuOff.toFixed(1)} µs CPU a request costs without validation`,
  );
  process.exitCode = 1 - ratio > maxCost ? 1 : 0;
} finally {
  for (const child of children) child.disconnect();
  await auth.close();
  rmSync(dir, { recursive: true, force: true });
}
