/**
 * Sizes libuv's thread pool to the machine. Rules and why:
 * - the pool runs the CPU-bound work our servers keep off the event loop: the RSA signature of
 *   every token (jose signs with a callback), argon2id for every password, and file system calls.
 *   Left alone, libuv starts 4 threads the first time anything uses it, whatever the machine;
 * - on fewer cores than that, the pool's threads compete with the event loop, the one thread every
 *   request needs, and the kernel shares a core evenly between runnable threads: under token load
 *   the authorization server's event loop waits for a core while the machine still idles between
 *   signatures (bench/README.md, "Token path");
 * - so one thread per core this process may use (`availableParallelism`), at least 2 (a slow file
 *   or DNS call never stops every signature) and at most 64;
 * - an operator's `UV_THREADPOOL_SIZE` is kept as it is: libuv reads it;
 * - it takes effect only if nothing has used the pool yet: call it first in main.
 */
import { availableParallelism } from 'node:os';

const MIN_POOL_THREADS = 2;
const MAX_POOL_THREADS = 64;

/** The pool size for a machine with `cores` cores available. */
export function threadPoolSizeFor(cores: number): number {
  return Math.min(MAX_POOL_THREADS, Math.max(MIN_POOL_THREADS, Math.floor(cores)));
}

/**
 * Sets `UV_THREADPOOL_SIZE` in `env` (the process's own environment, which libuv reads when the
 * pool starts) unless it is set already. Returns what the variable holds afterwards.
 */
export function sizeThreadPool(env: NodeJS.ProcessEnv = process.env, cores: number = availableParallelism()): string {
  const chosen = env.UV_THREADPOOL_SIZE;
  if (chosen !== undefined && chosen.trim() !== '') return chosen;
  const size = String(threadPoolSizeFor(cores));
  env.UV_THREADPOOL_SIZE = size;
  return size;
}
