/**
 * Where a process's log lines go when no destination is given: standard output, written in
 * batches. Rules:
 * - lines are gathered until {@link STDOUT_BATCH_BYTES} are waiting, or for at most
 *   {@link STDOUT_FLUSH_MS}, then written with one system call, off the main thread;
 * - when the process exits (process.exit, the end of the event loop, a signal handled by
 *   shutdownOnSignals, an uncaught exception), what is waiting is written synchronously first;
 * - a line is never dropped for being late or many: a slow reader only makes the buffer wait.
 * Why: a write per line was one system call per request, the largest cost of a request after the
 * socket itself (bench/README.md, API read). What it costs: a process killed with SIGKILL, or
 * by the kernel, loses at most the last {@link STDOUT_FLUSH_MS} of lines.
 */
import { pino, type DestinationStream } from 'pino';

/** A batch is written once this many bytes wait (about a dozen request lines). */
export const STDOUT_BATCH_BYTES = 4096;
/** The longest a line waits, ms. */
export const STDOUT_FLUSH_MS = 100;

/** Standard output, batched (pino's asynchronous destination, flushed on exit). */
export function batchedStdout(fd = 1): DestinationStream {
  return pino.destination({ dest: fd, sync: false, minLength: STDOUT_BATCH_BYTES, periodicFlush: STDOUT_FLUSH_MS });
}
