/**
 * Gives back the memory a server process used only to start. Rules:
 * - run once, when the process is ready: loading and evaluating the module graph (and the first
 *   outgoing requests) grow V8's young generation to its maximum and leave garbage that V8's
 *   own idle collector does not reclaim within minutes; one full collection of the kind V8 runs
 *   under memory pressure (`flavor: 'last-resort'`) frees it and shrinks the young generation to
 *   its minimum (bench/README.md, "Memory");
 * - never on a request path: it pauses the process for a few tens of milliseconds; under load
 *   the young generation grows back as V8 sees fit, so throughput is unchanged;
 * - V8's `gc` is reached by turning `--expose-gc` on for one fresh context and off again; the
 *   process's own global never gets a `gc`. When this Node refuses, nothing happens and it
 *   answers false: the process works the same, holding more memory;
 * - the collection does not keep hidden classes no live object uses: keepTickObjectShape runs
 *   first (and its queued tick lives through this collection), or Node's `nextTick` would turn
 *   slow for the life of the process (keep-tick-shape.ts).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { keepTickObjectShape } from './keep-tick-shape.ts';

type GarbageCollect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** One memory-reducing full collection, now. True when it ran. */
export function releaseStartupMemory(): boolean {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as GarbageCollect | undefined;
    setFlagsFromString('--no-expose-gc');
    if (!gc) return false;
    keepTickObjectShape();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    return true;
  } catch {
    return false;
  }
}

/** {@link releaseStartupMemory} once, `delayMs` from now (after the start-up work settled); never keeps the process alive. */
export function releaseStartupMemoryLater(delayMs = 1_000): void {
  setTimeout(releaseStartupMemory, delayMs).unref();
}
