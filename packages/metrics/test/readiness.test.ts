import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkReadiness } from '../src/index.ts';

describe('checkReadiness', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is ready when every check resolves (to anything but false)', async () => {
    expect(await checkReadiness({ database: async () => undefined, keys: async () => true })).toEqual({
      status: 'ready',
      checks: { database: 'ok', keys: 'ok' },
    });
  });

  it('names each failing check: false, a rejection or a throw', async () => {
    const report = await checkReadiness({
      database: () => Promise.reject(new Error('connection refused')),
      keys: async () => false,
      migrations: async () => {
        throw new Error('behind');
      },
      other: async () => 1,
    });
    expect(report).toEqual({ status: 'not_ready', checks: { database: 'failing', keys: 'failing', migrations: 'failing', other: 'ok' } });
  });

  it('fails a check that does not answer within the timeout', async () => {
    vi.useFakeTimers();
    const pending = checkReadiness({ database: () => new Promise(() => {}), keys: async () => true }, { timeoutMs: 1_000 });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await pending).toEqual({ status: 'not_ready', checks: { database: 'failing', keys: 'ok' } });
  });
});
