/**
 * Group commit of the refresh-token rotations on SQLite (issue 13). Rules:
 * - each caller's writes run inside one transaction shared with the rotations of the other
 *   requests that reached this point in the same turn of the event loop; every caller is answered
 *   only once that transaction is committed, so a response still follows its own commit (the
 *   durability is the same: one WAL sync covers them all instead of one each);
 * - a caller's writes stay atomic (they are in one transaction either way);
 * - if the shared transaction fails, each caller's writes are retried in a transaction of their
 *   own, so one caller's failure is never another's;
 * - the group is started with setImmediate: the requests parsed in the same turn join it. While
 *   SQLite syncs the WAL the event loop is blocked, so the requests that arrived meanwhile form
 *   the next group.
 * Why: on SQLite each commit waits for fsync inside the synchronous statement, blocking every
 * request; under refresh load that wait was the largest cost of the token endpoint (profiles).
 */

/** Runs `work` for every item inside one transaction. */
export type RunInTransaction<T> = (items: readonly T[]) => Promise<void>;

export interface GroupCommit<T> {
  /** Resolves once the transaction holding `item`'s writes is committed. */
  commit(item: T): Promise<void>;
}

export function createGroupCommit<T>(run: RunInTransaction<T>): GroupCommit<T> {
  let queue: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let scheduled = false;

  async function flush(): Promise<void> {
    scheduled = false;
    const group = queue;
    queue = [];
    try {
      await run(group.map((entry) => entry.item));
      for (const entry of group) entry.resolve();
    } catch (error) {
      if (group.length === 1) {
        group[0]!.reject(error);
        return;
      }
      // Alone again: one caller's failure must not fail the others.
      for (const entry of group) {
        try {
          await run([entry.item]);
          entry.resolve();
        } catch (own) {
          entry.reject(own);
        }
      }
    }
  }

  return {
    commit(item) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(() => void flush());
        }
      });
    },
  };
}
