/**
 * A fixed number of slots for password hashing: at most `slots` argon2id operations (hash or
 * verify) run at once; the others wait for a free slot, first come first served. Rules:
 * - a task takes a slot when it starts and gives it back when it settles, resolved or rejected;
 * - waiting is in this process, in order; nothing is dropped (the login rate limits of
 *   regulation/ bound who may ask);
 * - `slots` must be a positive integer.
 * Why: argon2id is CPU- and memory-hard (19 MiB per operation). libuv's worker pool runs four at
 * once by default; on a 2-core machine four hashes share two cores, evict each other's memory
 * from the caches and each takes longer (the login bench, bench/README.md). One hash per core
 * keeps every core busy with the least work per login, and leaves the other pool threads free for
 * file and DNS work.
 */
export type HashingSlots = <T>(task: () => Promise<T>) => Promise<T>;

export function hashingSlots(slots: number): HashingSlots {
  if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`hashing slots must be a positive integer, got ${slots}`);
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return async (task) => {
    if (running < slots) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      release();
    }
  };
}
