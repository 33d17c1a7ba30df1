import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startWatchedProcess, type WatchedProcess } from '../src/watched-process.ts';

/** A server stand-in: prints "up <pid>" and stays until signalled (or does what `body` says). */
const SERVER = "process.stdout.write('up ' + process.pid + '\\n'); setInterval(() => {}, 1000);";

interface Run {
  process: WatchedProcess;
  started: ChildProcess[];
  exits: [number | null, NodeJS.Signals | null][];
  restarts: string[];
  /** Resolves when the n-th process (1-based) has printed its first line. */
  up(n: number): Promise<number>;
  /** Resolves when n exits have been reported. */
  exited(n: number): Promise<void>;
}

const dirs: string[] = [];
const runs: WatchedProcess[] = [];

afterEach(async () => {
  for (const run of runs.splice(0)) await run.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'watched-process-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'src'));
  return dir;
}

/** Polls `check` on each event-loop turn until it holds (every wait here is on an event, none on a clock). */
function until(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = () => (check() ? resolve() : setImmediate(poll));
    poll();
  });
}

function run(dir: string, script: string, stopMs = 5_000): Run {
  const started: ChildProcess[] = [];
  const firstLines: string[] = [];
  const exits: Run['exits'] = [];
  const restarts: string[] = [];
  const process = startWatchedProcess({
    command: globalThis.process.execPath,
    args: ['-e', script],
    cwd: dir,
    env: globalThis.process.env,
    watch: [join(dir, 'src')],
    settleMs: 20,
    stopMs,
    onStart(child) {
      const index = started.push(child) - 1;
      child.stdout!.once('data', (chunk: Buffer) => (firstLines[index] = chunk.toString()));
    },
    onExit: (code, signal) => exits.push([code, signal]),
    onRestart: (file) => restarts.push(file),
  });
  runs.push(process);
  return {
    process,
    started,
    exits,
    restarts,
    async up(n) {
      await until(() => firstLines[n - 1] !== undefined);
      return Number(/^up (\d+)/.exec(firstLines[n - 1]!)![1]);
    },
    exited: (n) => until(() => exits.length >= n),
  };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('startWatchedProcess', () => {
  it('starts the command at once, and a change under a watched folder restarts it: the old process ends first, then one new one starts', async () => {
    const dir = folder();
    const server = run(dir, SERVER);
    const first = await server.up(1);
    expect(server.process.current()?.pid).toBe(first);
    // The watchers are set up on the turn after the start.
    await new Promise((resolve) => setImmediate(resolve));
    writeFileSync(join(dir, 'src', 'app.ts'), 'changed');
    const second = await server.up(2);
    expect(second).not.toBe(first);
    expect(alive(first)).toBe(false);
    expect(server.restarts).toEqual([join('src', 'app.ts')]);
    // A restart is not an exit of the app's own.
    expect(server.exits).toEqual([]);
    expect(server.started).toHaveLength(2);
  });

  it('a burst of changes within the settle time makes one restart', async () => {
    const dir = folder();
    const server = run(dir, SERVER);
    await server.up(1);
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 5; i += 1) writeFileSync(join(dir, 'src', `file-${i}.ts`), String(i));
    await server.up(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.restarts).toHaveLength(1);
    expect(server.started).toHaveLength(2);
  });

  it('a process that fails on its own is reported and waits for the next change, then starts again', async () => {
    const dir = folder();
    const server = run(dir, "process.stdout.write('up ' + process.pid + '\\n'); if (!require('node:fs').existsSync('src/fixed')) process.exit(3); setInterval(() => {}, 1000);");
    await server.up(1);
    await server.exited(1);
    expect(server.exits).toEqual([[3, null]]);
    expect(server.process.current()).toBeUndefined();
    expect(server.started).toHaveLength(1);
    writeFileSync(join(dir, 'src', 'fixed'), '');
    const pid = await server.up(2);
    expect(server.process.current()?.pid).toBe(pid);
    expect(server.exits).toHaveLength(1);
  });

  it('stop() ends the process and the watching: a later change starts nothing', async () => {
    const dir = folder();
    const server = run(dir, SERVER);
    const pid = await server.up(1);
    await new Promise((resolve) => setImmediate(resolve));
    await server.process.stop();
    expect(alive(pid)).toBe(false);
    expect(server.process.current()).toBeUndefined();
    writeFileSync(join(dir, 'src', 'app.ts'), 'changed');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.started).toHaveLength(1);
    expect(server.restarts).toEqual([]);
    expect(server.exits).toEqual([]);
  });

  it('a process that ignores SIGTERM is killed after stopMs', async () => {
    const dir = folder();
    const server = run(dir, `process.on('SIGTERM', () => {}); ${SERVER}`, 50);
    const pid = await server.up(1);
    await server.process.stop();
    expect(alive(pid)).toBe(false);
    expect(server.started[0]!.signalCode).toBe('SIGKILL');
  });
});
