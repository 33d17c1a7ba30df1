/**
 * How long `pnpm dev` takes to be ready: from spawning the command to the last of the four dev
 * servers (DEV_TOPOLOGY: auth, api, app-one, app-two) answering `GET /healthz` 200.
 * Rules:
 * - the command runs from the repository root in a process group of its own, with every app's
 *   data (databases, development secrets) and Node's compile cache (NODE_COMPILE_CACHE, which
 *   scripts/dev.ts keeps when it is set) in `dataDir`: a fresh folder measures a first start,
 *   and the same folder again measures a warm one, which reuses that cache;
 * - a first start is measured cold (nothing compiled: as after a `git pull` that changed every
 *   file) or as after `pnpm install` (prepareAsAfterInstall: the install's last step, the root
 *   `postinstall`, run through pnpm with the same environment first, so pnpm's own code and the
 *   dev servers' modules are in the folder's cache as an install leaves them; no data yet);
 * - each server is polled every `pollMs` (25 ms); a server counts as ready at its first 200,
 *   and the figure is the time of the last of the four;
 * - then every process the command started is stopped (its process group and each group below
 *   it: scripts/dev.ts starts each app's dev script in a group of its own; SIGTERM, SIGKILL
 *   after `stopMs`) and waited for, so the ports are free for the next run; a run past
 *   `timeoutMs` fails with the command's output.
 *
 * `node bench/src/dev-ready.ts [runs]`: `runs` cold first starts, `runs` first starts after an
 * install (each in a fresh folder) and `runs` warm starts (all in one folder that a first start
 * has filled), one line each.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_TOPOLOGY } from '@gatehouse/contracts';

const REPO_ROOT = new URL('../../', import.meta.url).pathname;

/**
 * pnpm: the pnpm that runs this script when there is one (pnpm names itself in `npm_execpath`),
 * else the pinned pnpm through npx, whose own start is then part of the figure.
 */
function pnpm(): readonly string[] {
  const script = process.env.npm_execpath;
  if (script && /pnpm\.c?js$/.test(script)) return [process.execPath, script];
  return ['npx', '-y', 'pnpm@10.34.9'];
}

export interface DevReadyOptions {
  /** Where the apps keep their databases and development secrets. */
  readonly dataDir: string;
  readonly command?: readonly string[];
  readonly pollMs?: number;
  readonly timeoutMs?: number;
  readonly stopMs?: number;
}

export interface DevReady {
  /** From the spawn to the last server's first /healthz 200. */
  readonly ms: number;
  /** Each server's own time to its first /healthz 200. */
  readonly servers: Readonly<Record<keyof typeof DEV_TOPOLOGY, number>>;
}

/**
 * The environment that keeps every app's files in `dataDir` (each app otherwise writes `./data`
 * under its own folder), and Node's compile cache with them.
 */
export function devDataEnv(dataDir: string): Record<string, string> {
  return {
    NODE_COMPILE_CACHE: join(dataDir, 'node-compile-cache'),
    AUTH_DATA_DIR: join(dataDir, 'auth'),
    AUTH_DATABASE_URL: `sqlite:${join(dataDir, 'auth', 'auth.db')}`,
    API_DATABASE_URL: `sqlite:${join(dataDir, 'api.db')}`,
    CLIENT_DATA_DIR: join(dataDir, 'client'),
  };
}

/**
 * Leaves `dataDir` as `pnpm install` leaves a fresh clone for `pnpm dev`: the install's last step
 * (the root `postinstall`, scripts/compile-dev.ts) run through pnpm, with the environment a
 * measurement gives the command.
 */
export function prepareAsAfterInstall(dataDir: string): void {
  const [command, ...args] = [...pnpm(), 'run', '--silent', 'postinstall'];
  const result = spawnSync(command!, args, { cwd: REPO_ROOT, env: { ...process.env, ...devDataEnv(dataDir), FORCE_COLOR: '0' }, encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`pnpm run postinstall failed (${result.signal ?? result.status}):\n${result.stdout}${result.stderr}`);
}

async function answers200(url: string, signal: AbortSignal): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(1_000)]) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** Every process below `pid`, with its process group (scripts/dev.ts starts each app's dev script in a group of its own). */
function descendants(pid: number): { pid: number; pgid: number }[] {
  const children = new Map<number, { pid: number; pgid: number }[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const list = children.get(Number(ppid)) ?? [];
      list.push({ pid: Number(entry), pgid: Number(pgid) });
      children.set(Number(ppid), list);
    } catch {
      // Ended between the listing and the read.
    }
  }
  const found: { pid: number; pgid: number }[] = [];
  const walk = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      found.push(child);
      walk(child.pid);
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Stops the command's group and every group its processes started, and waits until none of them is left. */
async function stopAll(child: ChildProcess, stopMs: number): Promise<void> {
  const processes = [{ pid: child.pid!, pgid: child.pid! }, ...descendants(child.pid!)];
  const groups = new Set(processes.map((p) => p.pgid));
  const signal = (name: NodeJS.Signals) => {
    for (const group of groups) {
      try {
        process.kill(-group, name);
      } catch {
        // That group is gone already.
      }
    }
  };
  signal('SIGTERM');
  const deadline = performance.now() + stopMs;
  while (processes.some((p) => alive(p.pid))) {
    if (performance.now() > deadline) signal('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export async function measureDevReady(options: DevReadyOptions): Promise<DevReady> {
  const [command, ...args] = options.command ?? [...pnpm(), 'dev'];
  const pollMs = options.pollMs ?? 25;
  const timeoutMs = options.timeoutMs ?? 60_000;
  // A server left from elsewhere would answer for the one being measured.
  for (const [name, { url }] of Object.entries(DEV_TOPOLOGY)) {
    if (await answers200(`${url}/healthz`, AbortSignal.timeout(1_000))) throw new Error(`${name} already answers on ${url}: stop it first`);
  }
  let output = '';
  const started = performance.now();
  const child = spawn(command!, args, {
    cwd: REPO_ROOT,
    detached: true,
    env: { ...process.env, ...devDataEnv(options.dataDir), FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const stop = new AbortController();
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`pnpm dev exited (${signal ?? code}) before every server was ready:\n${output}`))),
  );
  exited.catch(() => undefined);
  const ready = Object.fromEntries(
    await Promise.race([
      Promise.all(
        Object.entries(DEV_TOPOLOGY).map(async ([name, { url }]) => {
          for (;;) {
            if (stop.signal.aborted) throw new Error('stopped');
            if (await answers200(`${url}/healthz`, stop.signal)) return [name, Math.round(performance.now() - started)] as const;
            if (performance.now() - started > timeoutMs) throw new Error(`${name} did not answer /healthz 200 within ${timeoutMs} ms:\n${output}`);
            await new Promise((resolve) => setTimeout(resolve, pollMs));
          }
        }),
      ),
      exited,
    ]).finally(async () => {
      stop.abort();
      await stopAll(child, options.stopMs ?? 5_000);
    }),
  ) as Record<keyof typeof DEV_TOPOLOGY, number>;
  return { ms: Math.max(...Object.values(ready)), servers: ready };
}

/** Runs `run` with a fresh data folder under `parent`, removed afterwards. */
export async function inFreshDataDir<T>(parent: string, run: (dataDir: string) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(parent, 'gatehouse-dev-ready-'));
  try {
    return await run(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `runs` cold first starts, `runs` first starts after an install and `runs` warm starts, one line each. */
async function cli(runs: number): Promise<void> {
  const describe = (r: DevReady) => `${String(r.ms).padStart(5)} ms  (${Object.entries(r.servers).map(([name, ms]) => `${name} ${ms}`).join(', ')})`;
  const line = async (label: string, dataDir: string) => console.log(`${label}: ${describe(await measureDevReady({ dataDir }))}`);
  for (let i = 1; i <= runs; i++) await inFreshDataDir(tmpdir(), (dir) => line(`cold first start      ${i}`, dir));
  for (let i = 1; i <= runs; i++) {
    await inFreshDataDir(tmpdir(), (dir) => {
      prepareAsAfterInstall(dir);
      return line(`first start (install) ${i}`, dir);
    });
  }
  await inFreshDataDir(tmpdir(), async (dir) => {
    await measureDevReady({ dataDir: dir });
    for (let i = 1; i <= runs; i++) await line(`warm start            ${i}`, dir);
  });
}

if (import.meta.filename === process.argv[1]) await cli(Number(process.argv[2] ?? 3));
