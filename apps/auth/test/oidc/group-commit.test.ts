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
});
