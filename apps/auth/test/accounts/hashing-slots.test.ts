import { describe, expect, it } from 'vitest';
import { hashingSlots } from '../../src/accounts/hashing-slots.ts';

/** A task the test finishes by hand, recording when it started. */
function controlled(started: string[], name: string) {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const task = () => {
    started.push(name);
    return new Promise<string>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return { task, finish: (v = name) => finish(v), fail: (e: Error) => fail(e) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('hashingSlots', () => {
  it('runs at most `slots` tasks at once and starts the waiting ones in order', async () => {
    const slot = hashingSlots(2);
    const started: string[] = [];
    const tasks = ['a', 'b', 'c', 'd'].map((name) => controlled(started, name));
    const results = tasks.map((t) => slot(t.task));
    await settle();
    expect(started).toEqual(['a', 'b']);
    tasks[1]!.finish();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    tasks[0]!.finish();
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    tasks[2]!.finish();
    tasks[3]!.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('gives the slot back when a task fails, and passes the failure on', async () => {
    const slot = hashingSlots(1);
    const started: string[] = [];
    const first = controlled(started, 'first');
    const second = controlled(started, 'second');
    const a = slot(first.task);
    const b = slot(second.task);
    await settle();
    expect(started).toEqual(['first']);
    first.fail(new Error('bad hash'));
    await expect(a).rejects.toThrow('bad hash');
    await settle();
    expect(started).toEqual(['first', 'second']);
    second.finish('ok');
    expect(await b).toBe('ok');
  });

  it('gives the slot back when a task throws before returning a promise', async () => {
    const slot = hashingSlots(1);
    await expect(slot(() => { throw new Error('sync'); })).rejects.toThrow('sync');
    expect(await slot(async () => 'after')).toBe('after');
  });

  it('refuses a slot count that is not a positive integer', () => {
    expect(() => hashingSlots(0)).toThrow(RangeError);
    expect(() => hashingSlots(1.5)).toThrow('hashing slots must be a positive integer, got 1.5');
  });
});
