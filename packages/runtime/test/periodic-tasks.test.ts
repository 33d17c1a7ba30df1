import { afterEach, describe, expect, it, vi } from 'vitest';
import { periodicTasks, runOnTimer } from '../src/index.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('periodicTasks', () => {
  it('runs a task only once its period has passed by the clock', async () => {
    let now = 0;
    const runs: string[] = [];
    const tasks = periodicTasks(
      [
        { name: 'keys', everyMs: 5_000, run: async (at) => void runs.push(`keys@${at}`) },
        { name: 'purge', everyMs: 60_000, run: async (at) => void runs.push(`purge@${at}`) },
      ],
      () => now,
    );
    expect(tasks.periodMs).toBe(5_000);
    now = 4_999;
    await tasks.runDue();
    now = 5_000;
    await tasks.runDue();
    now = 9_999;
    await tasks.runDue();
    now = 60_000;
    await tasks.runDue();
    expect(runs).toEqual(['keys@5000', 'keys@60000', 'purge@60000']);
  });

  it('counts periods from the schedule: a tick a few ms earlier than the last one still finds the task due', async () => {
    let now = 0;
    const runs: number[] = [];
    const tasks = periodicTasks([{ name: 'keys', everyMs: 5_000, run: async (at) => void runs.push(at) }], () => now);
    for (const tick of [5_007, 10_002, 15_001, 19_999, 20_000, 31_000, 35_000]) {
      now = tick;
      await tasks.runDue();
    }
    // 31 000 is two periods late: it runs once, and 35 000 is the next period on the schedule.
    expect(runs).toEqual([5_007, 10_002, 15_001, 20_000, 31_000, 35_000]);
  });

  it('a task that throws does not stop the others', async () => {
    let now = 0;
    const runs: string[] = [];
    const tasks = periodicTasks(
      [
        { name: 'bad', everyMs: 1, run: () => Promise.reject(new Error('boom')) },
        { name: 'good', everyMs: 1, run: async () => void runs.push('good') },
      ],
      () => now,
    );
    now = 1;
    await tasks.runDue();
    expect(runs).toEqual(['good']);
  });
});

describe('runOnTimer', () => {
  it('runs the due tasks on an unref\'d timer, with no caller, and stops waiting for a run in progress', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const runs: number[] = [];
    let release: () => void = () => {};
    const tasks = periodicTasks(
      [
        {
          name: 'slow',
          everyMs: 1_000,
          run: (at) => {
            runs.push(at);
            return new Promise<void>((resolve) => (release = resolve));
          },
        },
      ],
      Date.now,
    );
    const unref = vi.fn();
    const timer = runOnTimer(tasks, {
      setInterval: (callback, ms) => Object.assign(setInterval(callback, ms), { unref }),
      clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
    });
    expect(unref).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(999);
    expect(runs).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toHaveLength(1);
    // Still running: the next ticks are skipped, not stacked.
    await vi.advanceTimersByTimeAsync(3_000);
    expect(runs).toHaveLength(1);
    let stopped = false;
    const stopping = timer.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(runs).toHaveLength(1);
  });
});
