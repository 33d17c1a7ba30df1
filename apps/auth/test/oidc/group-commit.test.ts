import { describe, expect, it } from 'vitest';
import { createGroupCommit } from '../../src/oidc/group-commit.ts';

describe('group commit of rotations', () => {
  it('the commits of one event-loop turn share one transaction; each resolves only after it', async () => {
    const runs: string[][] = [];
    let committed = false;
    const group = createGroupCommit<string>(async (items) => {
      runs.push([...items]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      committed = true;
    });
    const done: string[] = [];
    const all = ['a', 'b', 'c'].map((item) =>
      group.commit(item).then(() => {
        expect(committed).toBe(true);
        done.push(item);
      }),
    );
    await Promise.all(all);
    expect(runs).toEqual([['a', 'b', 'c']]);
    expect(done).toEqual(['a', 'b', 'c']);
    await group.commit('d');
    expect(runs).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('when the shared transaction fails, each is retried alone: one failure is not another caller\'s', async () => {
    const runs: string[][] = [];
    const group = createGroupCommit<string>(async (items) => {
      runs.push([...items]);
      if (items.includes('bad')) throw new Error(`failed: ${items.join(',')}`);
    });
    const results = await Promise.allSettled(['a', 'bad', 'c'].map((item) => group.commit(item)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('failed: bad'));
    expect(runs).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
    await expect(group.commit('bad')).rejects.toThrow('failed: bad');
  });

  it('with afterCommit (the log synced off the event loop), callers are answered only once it resolves, and the next group commits meanwhile', async () => {
    const events: string[] = [];
    let finishSync: (() => void)[] = [];
    const group = createGroupCommit<string>(
      async (items) => {
        events.push(`commit ${items.join(',')}`);
      },
      () =>
        new Promise<void>((resolve) => {
          events.push('sync');
          finishSync.push(resolve);
        }),
    );
    const first = Promise.all(['a', 'b'].map((item) => group.commit(item).then(() => events.push(`answer ${item}`))));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['commit a,b', 'sync']);
    // While the disk works, the next turn's group commits.
    const second = group.commit('c').then(() => events.push('answer c'));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['commit a,b', 'sync', 'commit c', 'sync']);
    const [syncFirst, syncSecond] = finishSync;
    finishSync = [];
    syncFirst!();
    await first;
    expect(events).toEqual(['commit a,b', 'sync', 'commit c', 'sync', 'answer a', 'answer b']);
    syncSecond!();
    await second;
    expect(events.at(-1)).toBe('answer c');
  });

  it('when afterCommit fails, every committed caller fails with it and nothing is retried', async () => {
    const runs: string[][] = [];
    const group = createGroupCommit<string>(
      async (items) => {
        runs.push([...items]);
        if (items.includes('bad')) throw new Error('constraint failed');
      },
      async () => {
        throw new Error('EIO: i/o error, fdatasync');
      },
    );
    const results = await Promise.allSettled(['a', 'bad'].map((item) => group.commit(item)));
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'ok'))).toEqual(['EIO: i/o error, fdatasync', 'constraint failed']);
    expect(runs).toEqual([['a', 'bad'], ['a'], ['bad']]);
  });
});
