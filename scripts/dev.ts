/**
 * `pnpm dev`: the `dev` script of every app (apps/*), all at once, in one log stream, with as few
 * processes as the start allows (bench/README.md, "Start-up"). Rules:
 * - each script runs the way `pnpm run dev` runs it: `sh -c <script>` in the app's folder, with
 *   the app's and the root's `node_modules/.bin` first on PATH; no package manager process is
 *   started per app (each would cost as much CPU as an app's own start);
 * - every line an app writes is prefixed with its package name (`@gatehouse/auth:dev: `);
 * - a script that ends in `| gatehouse-devlog` runs without that pipe, and the lines its command
 *   writes to stdout are formatted here by the same formatter (@gatehouse/devlog formatLogLine):
 *   the output is what the pipe prints, without a Node process per app to print it; run on its
 *   own (`pnpm --filter <app> dev`), the script still pipes;
 * - Node's compile cache is on for every process below this one (NODE_COMPILE_CACHE, in
 *   `node_modules/.cache/node-compile-cache` unless already set): a start reuses the code V8
 *   compiled at the one before, and a changed file is compiled again (the cache is keyed by content);
 * - SIGINT/SIGTERM stop every app (its whole process group); an app that exits (a dev script
 *   restarts its server on change, so only a failure ends one) stops the others, and this exits
 *   with its code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { formatLogLine } from '@gatehouse/devlog';

const ROOT = resolve(import.meta.dirname, '..');

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
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(ROOT, 'node_modules', '.cache', 'node-compile-cache'),
};

const children: ChildProcess[] = [];
let stopping = false;

function stop(code: number): void {
  if (!stopping) {
    stopping = true;
    process.exitCode = code;
    for (const child of children) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // Its group is gone already.
      }
    }
  }
  if (children.every((child) => child.exitCode !== null || child.signalCode !== null)) process.exit(process.exitCode ?? code);
}

for (const app of devApps()) {
  const label = `${app.name}:dev: `;
  const child = spawn('sh', ['-c', app.script], {
    cwd: app.dir,
    env: { ...env, PATH: [join(app.dir, 'node_modules', '.bin'), join(ROOT, 'node_modules', '.bin'), env.PATH].join(delimiter) },
    // A group of its own, so stopping it reaches the watcher, the server and the log formatter alike.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const [stream, out, format] of [
    [child.stdout!, process.stdout, app.format],
    [child.stderr!, process.stderr, false],
  ] as const) {
    createInterface({ input: stream }).on('line', (line) => out.write(`${(format ? formatLogLine(line) : line).replace(/^/gm, label)}\n`));
  }
  child.on('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`${label}exited ${signal ?? `with code ${code}`}\n`);
    stop(stopping ? (process.exitCode as number | undefined) ?? 0 : (code ?? 1));
  });
  children.push(child);
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
