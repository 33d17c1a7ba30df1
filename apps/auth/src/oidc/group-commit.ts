/**
 * Group commit of the refresh-token rotations on SQLite. Rules:
 * - each caller's writes run inside one transaction shared with the rotations of the other
 *   requests that reached this point in the same turn of the event loop; every caller is answered
 *   only once that transaction is committed, so a response still follows its own commit (the
 *   durability is the same: one WAL sync covers them all instead of one each);
 * - a caller's writes stay atomic (they are in one transaction either way);
 * - if the shared transaction fails, each caller's writes are retried in a transaction of their
 *   own, so one caller's failure is never another's;
 * - the group is started with setImmediate: the requests parsed in the same turn join it;
 * - with `afterCommit` (SQLite: the log synced in libuv's pool), the transaction commits without
 *   waiting for the disk: each caller learns when its writes are committed (`committed`: it may go
 *   on with its request) and when afterCommit has run (`durable`: only then may it answer). What
 *   is answered is as durable as with a synchronous commit; the event loop serves other requests,
 *   and the request itself goes on (its signatures), while the disk works;
 * - while one group's afterCommit runs, the next group forms and waits: it commits, as one
 *   transaction, when that afterCommit has settled. Its callers wait no longer than they would alone (a
 *   commit made during a sync waits for the sync after it anyway), and the group is larger: fewer
 *   commits, so fewer log pages written for the same rows (the same hot pages are rewritten by
 *   every commit), fewer checkpoints, and fewer statements per rotation.
 * Why: on SQLite each commit waits for fsync inside the synchronous statement, blocking every
 * request; under refresh load that wait is the largest cost of the token endpoint, and the cores
 * idle through it (bench/README.md, "Token path").
 */

/** Runs `work` for every item inside one transaction. */
export type RunInTransaction<T> = (items: readonly T[]) => Promise<void>;

/**
 * Runs after a group's transaction (or its callers' own ones) committed, before any of them is
 * answered: on SQLite the wait for the disk, off the event loop (Database.deferredSync). If it
 * fails, the group's callers fail (their rows may be stored, but were never said to be).
 */
export type AfterCommit = () => Promise<void>;

/** What one caller of {@link GroupCommit.commit} waits for. */
export interface Commitment {
  /** Resolves once the transaction holding the item's writes is committed; rejects if it failed. */
  committed: Promise<void>;
  /**
   * Resolves once afterCommit has run after that commit (at once without afterCommit); rejects if
   * the commit or afterCommit failed. Answer the caller only after it. Never an unhandled rejection.
   */
  durable: Promise<void>;
}

export interface GroupCommit<T> {
  commit(item: T): Commitment;
}

interface Entry<T> {
  item: T;
  committed: { resolve: () => void; reject: (error: unknown) => void };
  durable: { resolve: () => void; reject: (error: unknown) => void };
}

export function createGroupCommit<T>(run: RunInTransaction<T>, afterCommit?: AfterCommit): GroupCommit<T> {
  let queue: Entry<T>[] = [];
  let scheduled = false;
  let syncing = false;

  function schedule(): void {
    if (scheduled || syncing || queue.length === 0) return;
    scheduled = true;
    setImmediate(() => void flush());
  }

  async function flush(): Promise<void> {
    scheduled = false;
    const group = queue;
    queue = [];
    const fail = (entry: Entry<T>, error: unknown) => {
      entry.committed.reject(error);
      entry.durable.reject(error);
    };
    let committed = group;
    try {
      await run(group.map((entry) => entry.item));
    } catch (error) {
      if (group.length === 1) {
        fail(group[0]!, error);
        return;
      }
      // Alone again: one caller's failure must not fail the others.
      committed = [];
      for (const entry of group) {
        try {
          await run([entry.item]);
          committed.push(entry);
        } catch (own) {
          fail(entry, own);
        }
      }
    }
    if (committed.length === 0) return;
    for (const entry of committed) entry.committed.resolve();
    if (afterCommit) {
      syncing = true;
      try {
        await afterCommit();
      } catch (error) {
        // Committed, but not known to be on disk: nobody is told it was stored.
        for (const entry of committed) entry.durable.reject(error);
        return;
      } finally {
        syncing = false;
        schedule();
      }
    }
    for (const entry of committed) entry.durable.resolve();
  }

  return {
    commit(item) {
      let committed!: Entry<T>['committed'];
      let durable!: Entry<T>['durable'];
      const commitment: Commitment = {
        committed: new Promise<void>((resolve, reject) => (committed = { resolve, reject })),
        durable: new Promise<void>((resolve, reject) => (durable = { resolve, reject })),
      };
      // A caller whose commit failed never waits for `durable`: its rejection is handled here.
      commitment.durable.catch(() => undefined);
      queue.push({ item, committed, durable });
      schedule();
      return commitment;
    },
  };
}
