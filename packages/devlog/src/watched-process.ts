/**
 * A development server that restarts when its sources change, run by `pnpm dev` (scripts/dev.ts)
 * in place of Node's own `--watch-path` watcher, which is a Node process of its own per app.
 * Rules:
 * - the command starts at once, in a process group of its own (so a stop reaches whatever it
 *   started); `onStart` gets each process started, to read its output;
 * - a change under any watched folder (fs.watch, recursive; one watcher per folder, shared by the
 *   processes that watch it, set up after the turn that starts them) restarts it: the current process group
 *   gets SIGTERM (SIGKILL after `stopMs`), and once it has exited the command starts again; changes
 *   that arrive within `settleMs` of each other make one restart;
 * - a process that exits on its own (a crash, a refused configuration) is not started again until
 *   the next change, as Node's watcher does: `onExit` hears its code, and the other servers keep
 *   running;
 * - `stop()` ends the watching and the current process, and resolves once it has exited.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { watch, type FSWatcher } from 'node:fs';
import { join, relative } from 'node:path';

export interface WatchedProcessOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Absolute folders whose changes restart the process. */
  readonly watch: readonly string[];
  /** Called with every process started, before its first output. */
  readonly onStart: (child: ChildProcess) => void;
  /** A process ended on its own (not by a restart or a stop). */
  readonly onExit: (code: number | null, signal: NodeJS.Signals | null) => void;
  /** A restart is about to happen, because of this file (relative to cwd). */
  readonly onRestart: (file: string) => void;
  /** Quiet time that gathers a burst of changes into one restart (100 ms). */
  readonly settleMs?: number;
  /** Time a process gets after SIGTERM before SIGKILL (5000 ms). */
  readonly stopMs?: number;
}

export interface WatchedProcess {
  /** The process running now, if any. */
  current(): ChildProcess | undefined;
  stop(): Promise<void>;
}

/** One recursive watcher per folder, shared by every process watching it, with its listeners. */
const folders = new Map<string, { watcher: FSWatcher; listeners: Set<(file: string) => void> }>();

function subscribe(folder: string, listener: (file: string) => void): () => void {
  let entry = folders.get(folder);
  if (!entry) {
    const listeners = new Set<(file: string) => void>();
    const watcher = watch(folder, { recursive: true }, (_event, file) => {
      for (const each of listeners) each(file ?? '');
    });
    entry = { watcher, listeners };
    folders.set(folder, entry);
  }
  entry.listeners.add(listener);
  const current = entry;
  return () => {
    current.listeners.delete(listener);
    if (current.listeners.size === 0) {
      current.watcher.close();
      folders.delete(folder);
    }
  };
}

const ended = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Signals a whole process group; nothing when it is gone already. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Its group has ended.
  }
}

/**
 * Ends a process started in a group of its own: SIGTERM to the group, SIGKILL after `stopMs`;
 * resolves once the process has exited (at once when it has already).
 */
export function endProcessGroup(target: ChildProcess, stopMs = 5_000): Promise<void> {
  if (ended(target)) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => signalGroup(target, 'SIGKILL'), stopMs);
    target.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    signalGroup(target, 'SIGTERM');
  });
}

export function startWatchedProcess(options: WatchedProcessOptions): WatchedProcess {
  const settleMs = options.settleMs ?? 100;
  const stopMs = options.stopMs ?? 5_000;
  const spawnOptions: SpawnOptions = { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] };
  let child: ChildProcess | undefined;
  let stopping = false;
  let pending: ReturnType<typeof setTimeout> | undefined;
  let changed = '';
  /** Processes ended on purpose by a restart (their exit is not reported). */
  const restarting = new WeakSet<ChildProcess>();

  function start(): void {
    const started = spawn(options.command, options.args, spawnOptions);
    child = started;
    options.onStart(started);
    started.on('exit', (code, signal) => {
      if (child === started) child = undefined;
      if (!stopping && !restarting.has(started)) options.onExit(code, signal);
    });
  }

  let restartChain = Promise.resolve();
  function restart(): void {
    pending = undefined;
    if (stopping) return;
    options.onRestart(changed);
    restartChain = restartChain.then(async () => {
      const previous = child;
      if (previous) {
        restarting.add(previous);
        await endProcessGroup(previous, stopMs);
      }
      if (!stopping) start();
    });
  }

  start();
  // Watching starts once every server of this turn has been started: setting up a recursive
  // watch walks the folder, and no server waits for that.
  let unsubscribe: (() => void)[] = [];
  const watching = setImmediate(() => {
    unsubscribe = options.watch.map((folder) =>
      subscribe(folder, (file) => {
        changed = relative(options.cwd, join(folder, file));
        if (pending) clearTimeout(pending);
        pending = setTimeout(restart, settleMs);
      }),
    );
  });

  return {
    current: () => child,
    async stop() {
      stopping = true;
      clearImmediate(watching);
      if (pending) clearTimeout(pending);
      for (const leave of unsubscribe) leave();
      await restartChain;
      if (child) await endProcessGroup(child, stopMs);
    },
  };
}
