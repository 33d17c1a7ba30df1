import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sizeThreadPool, threadPoolSizeFor } from '../src/index.ts';

const fixture = fileURLToPath(new URL('./fixtures/pool-threads.ts', import.meta.url));

/** The number of pool threads a fresh Node process started, with `extra` in its environment. */
function poolThreads(extra: Record<string, string>, mode: 'size' | 'skip' = 'size'): number {
  const env = { ...process.env, ...extra };
  if (!('UV_THREADPOOL_SIZE' in extra)) delete env.UV_THREADPOOL_SIZE;
  const run = spawnSync(process.execPath, [fixture, mode], { encoding: 'utf8', env, timeout: 30_000 });
  expect(run.status, run.stderr).toBe(0);
  return Number(run.stdout.trim());
}

describe('threadPoolSizeFor', () => {
  it('is one thread per core, at least 2 and at most 64', () => {
    expect([1, 2, 3, 4, 8, 64, 65, 256].map(threadPoolSizeFor)).toEqual([2, 2, 3, 4, 8, 64, 64, 64]);
  });
});

describe('sizeThreadPool', () => {
  it('sets UV_THREADPOOL_SIZE for the cores when it is unset or empty', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(sizeThreadPool(env, 3)).toBe('3');
    expect(env).toEqual({ UV_THREADPOOL_SIZE: '3' });
    const blank: NodeJS.ProcessEnv = { UV_THREADPOOL_SIZE: ' ' };
    expect(sizeThreadPool(blank, 1)).toBe('2');
    expect(blank.UV_THREADPOOL_SIZE).toBe('2');
  });

  it("keeps the operator's UV_THREADPOOL_SIZE", () => {
    const env: NodeJS.ProcessEnv = { UV_THREADPOOL_SIZE: '12' };
    expect(sizeThreadPool(env, 2)).toBe('12');
    expect(env.UV_THREADPOOL_SIZE).toBe('12');
  });

  // Linux only (/proc), like every machine this runs on.
  it('a process that calls it first starts its pool with one thread per core', () => {
    expect(poolThreads({})).toBe(threadPoolSizeFor(availableParallelism()));
  });

  it("a process started with UV_THREADPOOL_SIZE keeps the operator's size", () => {
    expect(poolThreads({ UV_THREADPOOL_SIZE: '5' })).toBe(5);
  });

  it("without it, libuv's own default of 4 applies (the control)", () => {
    expect(poolThreads({}, 'skip')).toBe(4);
  });
});
