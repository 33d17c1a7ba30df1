/**
 * Keeps the hidden classes of Node's `process.nextTick` objects alive for the life of the
 * process. Rules and why:
 * - Node builds each tick as `{ [async_id_symbol]: …, [trigger_async_id_symbol]: …,
 *   [async_context_frame]: …, callback, args }` (node:internal/process/task_queues). V8 records
 *   the hidden class (map) that each computed key leads to, weakly, and turns that record
 *   megamorphic for good the first time it sees another map;
 * - a memory-reducing full collection (V8's memory reducer when a busy process goes idle, or
 *   releaseStartupMemory) does not retain maps that no live object uses. Between requests no tick
 *   object is alive, so those maps die, the next tick gets new ones, and from then on every
 *   `nextTick` (several per HTTP request) defines its properties through V8's runtime, many times
 *   the work (bench/README.md, "API read");
 * - one tick object kept here keeps its map and, through each map's back pointer, the whole chain
 *   alive, so later ticks find the same maps. It costs one small object; its callback does nothing.
 * - call it once, early (main); more calls change nothing.
 */
import { executionAsyncResource } from 'node:async_hooks';

let kept: object | undefined;
let queued = false;

/** Queues one empty tick whose object is kept for the life of the process. */
export function keepTickObjectShape(): void {
  if (queued) return;
  queued = true;
  process.nextTick(keepCurrentTick);
}

function keepCurrentTick(): void {
  // Inside a tick's callback, the execution resource is that tick's object.
  kept = executionAsyncResource();
}

/** The tick object kept, once its tick has run (for tests). */
export function keptTickObject(): object | undefined {
  return kept;
}
