/**
 * Helpers for tests and benchmarks that run the apps as child processes. Rules: ports are
 * picked by the kernel on loopback; a process is ready when its readiness URL answers 2xx, and a
 * process that exits first, or is not ready within the timeout, fails with its name.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

const REPO_ROOT = new URL('../../', import.meta.url).pathname;
const APPS = ['apps/auth', 'apps/api', 'apps/client'];

function spawnOrThrow(what: string, command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) throw new Error(`${what} failed:\n${result.error?.message ?? ''}${result.stdout}${result.stderr}`);
}

/**
 * The output `pnpm build` produces, without turbo: each workspace package with a
 * tsconfig.build.json compiled to its dist/, then each app compiled and linked to those
 * (scripts/link-built-packages.ts), so the production processes load no TypeScript.
 */
export function buildForProduction(): void {
  const tsc = join(REPO_ROOT, 'node_modules', '.bin', 'tsc');
  for (const folder of readdirSync(join(REPO_ROOT, 'packages'))) {
    const dir = join(REPO_ROOT, 'packages', folder);
    if (existsSync(join(dir, 'tsconfig.build.json'))) spawnOrThrow(`build of packages/${folder}`, tsc, ['-p', 'tsconfig.build.json'], dir);
  }
  for (const app of APPS) {
    const dir = join(REPO_ROOT, app);
    spawnOrThrow(`build of ${app}`, tsc, ['-p', 'tsconfig.build.json'], dir);
    spawnOrThrow(`linking the packages of ${app}`, process.execPath, [join(REPO_ROOT, 'scripts', 'link-built-packages.ts')], dir);
  }
}

/** The first port the kernel hands out to outgoing connections and to listeners on port 0. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 11_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

const handedOut = new Set<number>();

/** Listens on `port` of 127.0.0.1 and closes again: true when it was free. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port that was free on 127.0.0.1 a moment ago, for a process started next. Taken below the
 * kernel's ephemeral range: a port from that range (what listening on port 0 gives) can be taken
 * meanwhile as the local port of any outgoing connection (to PostgreSQL, nginx's upstreams), and the
 * process then fails to listen with EADDRINUSE (seen in a CI run). Random, and never the same twice
 * in one process, so parallel test files rarely meet either.
 */
export async function freePort(): Promise<number> {
  const low = 10_000;
  const high = ephemeralLow() - 1;
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port on 127.0.0.1 between ${low} and ${high} after 100 tries`);
}

/** Polls `url` until it answers 2xx; throws if `child` exits first or the timeout passes. */
export async function waitUntilReady(name: string, url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} before it was ready (see its log)`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`${name} was not ready at ${url} within ${timeoutMs} ms`);
}

/**
 * Stops a child and resolves once it has exited: `stop` asks it to end (a signal, or closing
 * its IPC channel), and SIGKILL follows after `graceMs`. Resolves at once if it already exited.
 */
export function stopChild(child: ChildProcess, stop: () => void, graceMs = 12_000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    stop();
  });
}
