/**
 * Brute-force regulation of logins. Rules:
 * - a key is banned once it has maxRetries failures inside one findTime window (the span between
 *   the first and the last of them is less than findTime);
 * - the ban lasts banTime from the failure that reached the threshold;
 * - several keys (account and client IP) are checked together: banned if any is, and the
 *   retry delay is the longest;
 * - the caller records no failures while a key is banned, so a ban is not extended by hammering.
 */
import type { RegulationStore } from './regulation-store.ts';

export interface RegulationState {
  banned: boolean;
  /** Whole seconds until the longest ban ends; 0 when not banned. */
  retryAfterSeconds: number;
}

export interface Regulator {
  check(keys: string[]): Promise<RegulationState>;
  /** Records a failure on every key and returns the state afterwards. */
  fail(keys: string[]): Promise<RegulationState>;
}

export interface RegulatorDeps {
  store: RegulationStore;
  clock: () => number;
  maxRetries: number;
  /** Seconds. */
  findTime: number;
  /** Seconds. */
  banTime: number;
}

export function createRegulator(deps: RegulatorDeps): Regulator {
  const { store, clock, maxRetries } = deps;
  const findMs = deps.findTime * 1000;
  const banMs = deps.banTime * 1000;

  /** Epoch ms at which the key's latest ban ends, or 0. */
  async function bannedUntil(key: string, now: number): Promise<number> {
    const failures = await store.failuresSince(key, now - banMs - findMs);
    let until = 0;
    for (let i = maxRetries - 1; i < failures.length; i++) {
      const last = failures[i]!;
      const first = failures[i - maxRetries + 1]!;
      if (last - first < findMs) until = Math.max(until, last + banMs);
    }
    return until;
  }

  async function check(keys: string[]): Promise<RegulationState> {
    const now = clock();
    const ends = await Promise.all(keys.map((key) => bannedUntil(key, now)));
    const latest = Math.max(0, ...ends);
    if (latest <= now) return { banned: false, retryAfterSeconds: 0 };
    return { banned: true, retryAfterSeconds: Math.ceil((latest - now) / 1000) };
  }

  return {
    check,
    async fail(keys) {
      const now = clock();
      for (const key of new Set(keys)) await store.recordFailure(key, now);
      return check(keys);
    },
  };
}
