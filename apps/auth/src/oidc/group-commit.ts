/**
 * Group commit of the refresh-token rotations on SQLite (issue 13). Rules:
 * - each caller's writes run inside one transaction shared with the rotations of the other
 *   requests that reached this point in the same turn of the event loop; every caller is answered
 *   only once that transaction is committed, so a response still follows its own commit (the
 *   durability is the same: one WAL sync covers them all instead of one each);
 * - a caller's writes stay atomic (they are in one transaction either way);
 * - if the shared transaction fails, each caller's writes are retried in a transaction of their
 *   own, so one caller's failure is never another's;
 * - the group is started with setImmediate: the requests parsed in the same turn join it;
 * - with `afterCommit` (SQLite: the log synced in libuv's pool), the transaction commits without
 *   waiting for the disk and the callers are answered once afterCommit resolves: what was answered
 *   is as durable as before, and the event loop serves other requests (the next group forms and
 *   commits) while the disk works.
 * Why: on SQLite each commit waits for fsync inside the synchronous statement, blocking every
 * request; under refresh load that wait was the largest cost of the token endpoint (profiles),
 * and the cores idled through it (bench/README.md, tenth pass).
 */

/** Runs `work` for every item inside one transaction. */
export type RunInTransaction<T> = (items: readonly T[]) => Promise<void>;

/**
 * Runs after a group's transaction (or its callers' own ones) committed, before any of them is
 * answered: on SQLite the wait for the disk, off the event loop (Database.deferredSync). If it
 * fails, the group's callers fail (their rows may be stored, but were never said to be).
 */
export type AfterCommit = () => Promise<void>;

export interface GroupCommit<T> {
  /** Resolves once the transaction holding `item`'s writes is committed. */
  commit(item: T): Promise<void>;
}

export function createGroupCommit<T>(run: RunInTransaction<T>, afterCommit?: AfterCommit): GroupCommit<T> {
  let queue: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let scheduled = false;

  async function flush(): Promise<void> {
    scheduled = false;
    const group = queue;
    queue = [];
    let committed = group;
    try {
      await run(group.map((entry) => entry.item));
    } catch (error) {
      if (group.length === 1) {
        group[0]!.reject(error);
        return;
      }
      // Alone again: one caller's failure must not fail the others.
      committed = [];
      for (const entry of group) {
        try {
          await run([entry.item]);
          committed.push(entry);
        } catch (own) {
          entry.reject(own);
        }
      }
    }
    if (committed.length === 0) return;
    if (afterCommit) {
      try {
        await afterCommit();
      } catch (error) {
        // Committed, but not known to be on disk: nobody is told it was stored.
        for (const entry of committed) entry.reject(error);
        return;
      }
    }
    for (const entry of committed) entry.resolve();
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
