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
    const all = ['a', 'b', 'c'].map((item) => {
      const { committed: stored, durable } = group.commit(item);
      return Promise.all([stored, durable]).then(() => {
        expect(committed).toBe(true);
        done.push(item);
      });
    });
    await Promise.all(all);
    expect(runs).toEqual([['a', 'b', 'c']]);
    expect(done).toEqual(['a', 'b', 'c']);
    // Without afterCommit, durable is the commit.
    await group.commit('d').durable;
    expect(runs).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('when the shared transaction fails, each is retried alone: one failure is not another caller\'s', async () => {
    const runs: string[][] = [];
    const group = createGroupCommit<string>(async (items) => {
      runs.push([...items]);
      if (items.includes('bad')) throw new Error(`failed: ${items.join(',')}`);
    });
    const commitments = ['a', 'bad', 'c'].map((item) => group.commit(item));
    const results = await Promise.allSettled(commitments.map((c) => c.committed));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('failed: bad'));
    expect((await Promise.allSettled(commitments.map((c) => c.durable))).map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(runs).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
    // A failed commit's durable rejects too, but is never an unhandled rejection when nobody awaits it.
    await expect(group.commit('bad').committed).rejects.toThrow('failed: bad');
  });

  it('with afterCommit (the log synced off the event loop), callers go on once committed and are answered only once it resolves; the next group forms meanwhile and commits after it', async () => {
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
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const request = (item: string) => {
      const { committed, durable } = group.commit(item);
      return committed.then(() => {
        events.push(`signs ${item}`);
        return durable.then(() => events.push(`answer ${item}`));
      });
    };
    const first = Promise.all(['a', 'b'].map(request));
    await turn();
    await turn();
    // Committed: the sync starts and the requests go on (their signatures) while the disk works; none is answered.
    expect(events).toEqual(['commit a,b', 'sync', 'signs a', 'signs b']);
    // The requests of the next turns gather: nothing commits.
    const second = request('c');
    await turn();
    const third = request('d');
    await turn();
    await turn();
    expect(events).toEqual(['commit a,b', 'sync', 'signs a', 'signs b']);
    finishSync.shift()!();
    await first;
    await turn();
    await turn();
    // Answered, then the gathered group commits as one and waits for its own sync.
    expect(events).toEqual(['commit a,b', 'sync', 'signs a', 'signs b', 'answer a', 'answer b', 'commit c,d', 'sync', 'signs c', 'signs d']);
    finishSync.shift()!();
    await Promise.all([second, third]);
    expect(events.slice(-2)).toEqual(['answer c', 'answer d']);
    expect(finishSync).toEqual([]);
  });

  it('a failed afterCommit does not stop the next group', async () => {
    const runs: string[][] = [];
    let fail = true;
    let release: (() => void) | undefined;
    const group = createGroupCommit<string>(
      async (items) => {
        runs.push([...items]);
      },
      () =>
        new Promise<void>((resolve, reject) => {
          release = fail ? () => reject(new Error('EIO: i/o error, fdatasync')) : resolve;
        }),
    );
    const first = group.commit('a');
    await first.committed;
    const second = group.commit('b');
    fail = false;
    release!();
    await expect(first.durable).rejects.toThrow('EIO: i/o error, fdatasync');
    await second.committed;
    release!();
    await expect(second.durable).resolves.toBeUndefined();
    expect(runs).toEqual([['a'], ['b']]);
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
    const commitments = ['a', 'bad'].map((item) => group.commit(item));
    const committed = await Promise.allSettled(commitments.map((c) => c.committed));
    expect(committed.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'ok'))).toEqual(['ok', 'constraint failed']);
    const results = await Promise.allSettled(commitments.map((c) => c.durable));
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'ok'))).toEqual(['EIO: i/o error, fdatasync', 'constraint failed']);
    expect(runs).toEqual([['a', 'bad'], ['a'], ['bad']]);
  });
});
