/**
 * A fixed number of slots for password hashing: at most `slots` argon2id operations (hash or
 * verify) run at once; the others wait for a free slot, first come first served. Rules:
 * - a task takes a slot when it starts and gives it back when it settles, resolved or rejected;
 * - waiting is in this process, in order; nothing is dropped (the login rate limits of
 *   regulation/ bound who may ask);
 * - `slots` must be a positive integer.
 * Why: argon2id is CPU- and memory-hard (19 MiB per operation) and runs on libuv's worker pool,
 * four threads by default, which the token endpoint's RSA signatures (WebCrypto) and file work
 * share. Four hashes at once would take every pool thread for the whole of a hash during a burst of
 * sign-ins, and a token request's signature would wait behind them; on fewer cores than hashes they
 * also slow each other down (each verification takes more CPU). One hash per core keeps the cores
 * busy and leaves pool threads for the rest.
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
