/**
 * What every Gatehouse server process does first in its main, before any import's work reaches
 * libuv's thread pool or a memory-reducing collection runs:
 * - sizes the thread pool to the machine's cores (thread-pool.ts);
 * - keeps the hidden classes of Node's nextTick objects alive (keep-tick-shape.ts).
 */
import { keepTickObjectShape } from './keep-tick-shape.ts';
import { sizeThreadPool } from './thread-pool.ts';

export function prepareServerProcess(): void {
  sizeThreadPool();
  keepTickObjectShape();
}
