/**
 * Where a process's log lines go when no destination is given: standard output, written in
 * batches. Rules:
 * - lines are gathered until {@link STDOUT_BATCH_BYTES} are waiting, or for at most
 *   {@link STDOUT_FLUSH_MS}, then written in order with one `write` (the rest of a partial
 *   write, or after EAGAIN on a full non-blocking pipe, is written at once after it);
 * - when the process exits (process.exit, the end of the event loop, a signal handled by
 *   shutdownOnSignals, an uncaught exception), what is waiting is written first;
 * - a line is never dropped for being late or many; if standard output is gone (EPIPE), lines
 *   are dropped from then on, as pino does.
 * Why: a write per line is one system call per request, on this kind of machine the largest
 * cost of a request after the socket itself; pino's own asynchronous destination (sonic-boom with
 * `minLength`) measures the byte length of its whole waiting buffer on every line, which costs
 * more than the line itself (bench/README.md, "API read"). What it costs: a process killed with
 * SIGKILL, or by the kernel, loses at most the last {@link STDOUT_FLUSH_MS} of lines.
 */
import { writeSync } from 'node:fs';
import type { DestinationStream } from 'pino';

/** A batch is written once this many characters wait (about sixty request lines). */
export const STDOUT_BATCH_BYTES = 16_384;
/** The longest a line waits, ms. */
export const STDOUT_FLUSH_MS = 100;

/** A destination that writes its lines in batches; `flushSync` writes what waits now. */
export interface BatchedDestination extends DestinationStream {
  flushSync(): void;
  /** What pino's `logger.flush(cb)` calls: writes what waits, then calls back. */
  flush(callback?: (error?: Error) => void): void;
}

// A short pause before writing again to a full non-blocking pipe.
const pause = new Int32Array(new SharedArrayBuffer(4));

function writeAll(fd: number, chunk: string): void {
  let bytes: Buffer | undefined;
  try {
    // The usual case, the whole chunk at once: no Buffer made for it here.
    const written = writeSync(fd, chunk);
    if (written === Buffer.byteLength(chunk, 'utf8')) return;
    bytes = Buffer.from(chunk, 'utf8').subarray(written);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    bytes = Buffer.from(chunk, 'utf8');
  }
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}

// One per file descriptor: every logger of a process shares it (and its one exit listener).
const byFd = new Map<number, BatchedDestination>();

/** Standard output (or `fd`), batched; flushed when the process exits. One per descriptor. */
export function batchedStdout(fd = 1): BatchedDestination {
  let destination = byFd.get(fd);
  if (!destination) byFd.set(fd, (destination = createBatched(fd)));
  return destination;
}

function createBatched(fd: number): BatchedDestination {
  let waiting: string[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function flushSync(): void {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (waiting.length === 0) return;
    const chunk = waiting.join('');
    waiting = [];
    size = 0;
    if (closed) return;
    try {
      writeAll(fd, chunk);
    } catch (error) {
      // Standard output is gone (its reader exited): nothing more can be written there.
      if ((error as NodeJS.ErrnoException).code === 'EPIPE') closed = true;
      else throw error;
    }
  }

  process.on('exit', flushSync);
  return {
    write(line: string) {
      waiting.push(line);
      size += line.length;
      if (size >= STDOUT_BATCH_BYTES) flushSync();
      else if (!timer) {
        timer = setTimeout(flushSync, STDOUT_FLUSH_MS);
        timer.unref();
      }
    },
    flushSync,
    flush(callback) {
      try {
        flushSync();
      } catch (error) {
        callback?.(error as Error);
        return;
      }
      callback?.();
    },
  };
}
