/**
 * Work a server does on a schedule (signing-key checks, purges of expired rows), owned by the
 * start-up path and never by incoming requests: an idle instance rotates its keys on time.
 * Rules:
 * - {@link periodicTasks} only decides what is due, by the injected clock: a task is due every
 *   `everyMs` counted from when the tasks were created (a run late by a few ms does not push the
 *   next one back, so timer jitter never skips a period); tests call `runDue()` after moving
 *   their clock, without any timer;
 * - {@link runOnTimer} calls `runDue()` on a real timer of the shortest period; the timer is
 *   unref'd (it never keeps a process alive), a tick that finds the previous run still going is
 *   skipped (no overlap), and `stop()` clears it and waits for a run in progress, so shutdown
 *   closes the database only after it;
 * - a task handles its own failures (logs them, tries again next period); one that throws
 *   anyway does not stop the others.
 */

/** One piece of periodic work. */
export interface PeriodicTask {
  readonly name: string;
  /** Least time between two runs, ms. */
  readonly everyMs: number;
  /** Does the work; `now` is the clock's time when the run started. */
  run(now: number): Promise<void>;
}

/** The tasks and what is due among them. */
export interface PeriodicTasks {
  /** Runs, one after the other, every task whose period has passed by the clock. */
  runDue(): Promise<void>;
  /** The shortest period, ms: how often a timer should call {@link runDue}. */
  readonly periodMs: number;
}

/** Injected by tests; the global timers otherwise. */
export interface Timers {
  setInterval(callback: () => void, ms: number): { unref?(): unknown };
  clearInterval(handle: unknown): void;
}

export function periodicTasks(tasks: readonly PeriodicTask[], clock: () => number): PeriodicTasks {
  const start = clock();
  const lastRun = new Map(tasks.map((task) => [task, start]));
  return {
    periodMs: Math.min(...tasks.map((task) => task.everyMs)),
    async runDue() {
      for (const task of tasks) {
        const now = clock();
        const last = lastRun.get(task)!;
        if (now - last < task.everyMs) continue;
        // The next period counts from the schedule, not from when this run began: a timer tick a
        // few ms earlier than the last one must still find the task due.
        lastRun.set(task, last + Math.floor((now - last) / task.everyMs) * task.everyMs);
        await task.run(now).catch(() => undefined);
      }
    },
  };
}

/** Calls `tasks.runDue()` every `tasks.periodMs` until `stop()`. */
export function runOnTimer(tasks: PeriodicTasks, timers: Timers = globalThis): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const handle = timers.setInterval(() => {
    if (running) return;
    running = tasks.runDue().finally(() => {
      running = undefined;
    });
  }, tasks.periodMs);
  handle.unref?.();
  return {
    async stop() {
      timers.clearInterval(handle);
      await running;
    },
  };
}
