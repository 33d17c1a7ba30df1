/**
 * Syncs SQLite's write-ahead log to disk off the event loop, for commits made without waiting for
 * the disk (`Database.deferredSync`, open-database.ts). Rules:
 * - a sync that resolves covers every commit made before it started: the kernel writes the log
 *   file's data out and waits for the disk (fdatasync, run in libuv's pool, not on the event loop);
 * - one sync at a time. A caller who arrives while one runs may have committed after it started,
 *   so it waits for the next one; every caller arriving meanwhile shares that next one (a queue of
 *   commits costs two syncs, not one each);
 * - a failed sync fails its own callers only; the next one is tried afresh.
 */
import { open, type FileHandle } from 'node:fs/promises';

/** Syncs a log; resolves once every commit made before the call is on disk. */
export type LogSync = () => Promise<void>;

/** {@link LogSync} over one `flush` (the real one: {@link walDatasync}) with the rules above. */
export function coalescedSync(flush: () => Promise<void>): LogSync {
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const sync = (): Promise<void> => {
    if (running === undefined) {
      running = flush().finally(() => {
        running = undefined;
      });
      return running;
    }
    next ??= running.then(ignore, ignore).then(() => {
      next = undefined;
      return sync();
    });
    return next;
  };
  return sync;
}

function ignore(): void {}

/**
 * fdatasync of the write-ahead log of the SQLite database at `path` (`<path>-wal`), on a handle
 * opened at the first call and kept: the log file lives as long as any connection is open (it is
 * truncated and reused in place, never replaced while open). One call at a time
 * ({@link coalescedSync}); `close` releases the handle.
 */
export function walDatasync(path: string): { flush: () => Promise<void>; close: () => Promise<void> } {
  let handle: FileHandle | undefined;
  return {
    flush: async () => {
      handle ??= await open(`${path}-wal`, 'r');
      await handle.datasync();
    },
    close: async () => {
      const opened = handle;
      handle = undefined;
      await opened?.close();
    },
  };
}
