/**
 * `pnpm dev`: the `dev` script of every app (apps/*), all at once, in one log stream, with as few
 * processes as the start allows (bench/README.md, "Start-up"). Rules:
 * - a script of the form `node --watch-path=<folder>… [--watch-preserve-output] <entry>` runs its
 *   entry with the Node running this script, without Node's watcher process: this process watches
 *   those folders and restarts the app on a change (@gatehouse/devlog startWatchedProcess); an app
 *   that fails waits for the next change, as under Node's watcher, and the others keep running;
 * - any other script runs the way `pnpm run dev` runs it: `sh -c <script>` in the app's folder,
 *   with the app's and the root's `node_modules/.bin` on PATH after this Node's own folder; its
 *   exit stops the others, and this exits with its code;
 * - no package manager process is started per app (each would cost as much CPU as an app's own start);
 * - every line an app writes is prefixed with its package name (`@gatehouse/auth:dev: `);
 * - a script that ends in `| gatehouse-devlog` runs without that pipe, and the lines its command
 *   writes to stdout are formatted here by the same formatter (@gatehouse/devlog formatLogLine):
 *   the output is what the pipe prints, without a Node process per app to print it; run on its
 *   own (`pnpm --filter <app> dev`), the script still pipes and Node's watcher watches;
 * - Node's compile cache is on for this process and every process below it (NODE_COMPILE_CACHE, in
 *   `node_modules/.cache/node-compile-cache` unless already set; `pnpm install` fills it,
 *   scripts/compile-dev.ts): a start reuses the code V8 compiled at the install or the start
 *   before, and a changed file is compiled again (the cache is keyed by content);
 * - SIGINT/SIGTERM stop every app (its whole process group; SIGKILL for one still there after 5 s),
 *   and this exits once they have.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { devCompileCacheDir } from '@gatehouse/devlog/compile-cache';

const ROOT = resolve(import.meta.dirname, '..');

// This process uses the cache too: the modules below are imported once it is on.
enableCompileCache(devCompileCacheDir(ROOT));
const { formatLogLine } = await import('@gatehouse/devlog');
const { watchedNodeScript } = await import('@gatehouse/devlog/dev-script');
const { endProcessGroup, startWatchedProcess } = await import('@gatehouse/devlog/watched-process');

interface DevApp {
  readonly name: string;
  readonly dir: string;
  readonly script: string;
  /** Its stdout lines go through formatLogLine (the script's own `| gatehouse-devlog`, taken off). */
  readonly format: boolean;
}

const DEVLOG_PIPE = /\s*\|\s*gatehouse-devlog\s*$/;

function devApps(): DevApp[] {
  const apps: DevApp[] = [];
  for (const folder of readdirSync(join(ROOT, 'apps')).sort()) {
    const file = join(ROOT, 'apps', folder, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name: string; scripts?: Record<string, string> };
    const script = pkg.scripts?.dev;
    if (script) apps.push({ name: pkg.name, dir: join(ROOT, 'apps', folder), script: script.replace(DEVLOG_PIPE, ''), format: DEVLOG_PIPE.test(script) });
  }
  return apps;
}

const env = {
  ...process.env,
  NODE_COMPILE_CACHE: devCompileCacheDir(ROOT),
};

/** How to stop each app (resolves once it has ended). */
const running: { stop(): Promise<void> }[] = [];
let stopping = false;

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.all(running.map((app) => app.stop()));
  process.exit(code);
}

function pipeOutput(app: DevApp, child: ChildProcess): void {
  const label = `${app.name}:dev: `;
  for (const [stream, out, format] of [
    [child.stdout!, process.stdout, app.format],
    [child.stderr!, process.stderr, false],
  ] as const) {
    createInterface({ input: stream }).on('line', (line) => out.write(`${(format ? formatLogLine(line) : line).replace(/^/gm, label)}\n`));
  }
}

for (const app of devApps()) {
  const label = `${app.name}:dev: `;
  // The apps run with the Node running this (the repository's pinned one), found first on PATH.
  const appEnv = { ...env, PATH: [dirname(process.execPath), join(app.dir, 'node_modules', '.bin'), join(ROOT, 'node_modules', '.bin'), env.PATH].join(delimiter) };
  const watched = watchedNodeScript(app.script, app.dir);
  if (watched) {
    const server = startWatchedProcess({
      command: process.execPath,
      args: watched.args,
      cwd: app.dir,
      env: appEnv,
      watch: watched.watch,
      onStart: (child) => pipeOutput(app, child),
      onExit: (code, signal) => process.stderr.write(`${label}exited ${signal ?? `with code ${code}`}; waiting for a change to restart\n`),
      onRestart: (file) => process.stderr.write(`${label}restarting (${file} changed)\n`),
    });
    running.push({ stop: () => server.stop() });
    continue;
  }
  const child = spawn('sh', ['-c', app.script], {
    cwd: app.dir,
    env: appEnv,
    // A group of its own, so stopping it reaches the watcher, the server and the log formatter alike.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  pipeOutput(app, child);
  child.on('exit', (code, signal) => {
    if (stopping) return;
    process.stderr.write(`${label}exited ${signal ?? `with code ${code}`}\n`);
    void stop(code ?? 1);
  });
  running.push({ stop: () => endProcessGroup(child) });
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
