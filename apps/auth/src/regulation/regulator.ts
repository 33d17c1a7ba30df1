/**
 * Brute-force regulation of logins: bounded guessing that an attacker cannot easily turn into a
 * lockout of somebody else. Modelled on Keycloak's brute-force detection (a wait that grows with
 * each failure before any lock, a failure window) and Authelia's regulation (find/ban times on
 * user and IP). Rules:
 * - a key names what an attempt counts against, `<rule>:<id>`; its rule is the prefix
 *   (`account`, `device`, `mfa`, `ip`; regulation/regulation-keys.ts chooses the keys; `recovery`
 *   and `recovery-ip` count password-recovery mails, account/forgot-password.ts; `enrollment-ip`
 *   counts wrong device-enrollment codes, authenticator/api.ts);
 * - failures count inside a window (`findTime`) that slides with the latest failure: those less
 *   than findTime older than it;
 * - progressive delay: once a key has `delayAfter` failures in the window, the next attempt must
 *   wait `delay` seconds after the latest failure, doubling with each further failure up to
 *   `maxDelay` (the n-th failure, n >= delayAfter, asks `min(delay * 2^(n - delayAfter), maxDelay)`);
 *   an attempt before then is refused (`delayed`, 429 + Retry-After), never slept on;
 * - hard lock: `lockAfter` failures inside one window (first to last less than findTime apart)
 *   lock the key for `banTime` from the failure that reached the threshold (`locked`);
 *   `delayAfter = lockAfter` means no delay, only the lock;
 * - several keys are checked together: refused if any is, `locked` over `delayed`, and the
 *   retry delay is the longest;
 * - the caller records no failure while refused, so hammering neither extends a lock nor grows
 *   the delay: every counted guess has waited its delay;
 * - a key passed twice in one failure counts once;
 * - `lockedUntil` tells operators when the hard lock of some keys ends (the latest end of a lock
 *   in force now, epoch ms, exact), or null when none is locked; a mere delay is not a lock.
 */
import type { RegulationStore } from './regulation-store.ts';

export interface RegulationRule {
  /** Failures in the window before each attempt must wait. */
  readonly delayAfter: number;
  /** Seconds: the first wait; it doubles with each further failure. */
  readonly delay: number;
  /** Seconds: the longest wait. */
  readonly maxDelay: number;
  /** Failures in the window that lock the key. */
  readonly lockAfter: number;
  /** Seconds. */
  readonly findTime: number;
  /** Seconds. */
  readonly banTime: number;
}

export type RuleName = 'account' | 'device' | 'mfa' | 'ip' | 'recovery' | 'recovery-ip' | 'enrollment-ip';
type FixedRuleName = 'recovery' | 'recovery-ip' | 'enrollment-ip';
/** The sign-in rules are always given; the fixed ones (recovery mail, enrollment codes) where they are regulated (services.ts). */
export type RegulationRules = Readonly<Record<Exclude<RuleName, FixedRuleName>, RegulationRule>> & Readonly<Partial<Record<FixedRuleName, RegulationRule>>>;

export type RegulationState =
  | { readonly state: 'open'; readonly retryAfterSeconds: 0 }
  | { readonly state: 'delayed' | 'locked'; readonly retryAfterSeconds: number };

export interface Regulator {
  check(keys: string[]): Promise<RegulationState>;
  /** Records a failure on every key and returns the state afterwards. */
  fail(keys: string[]): Promise<RegulationState>;
  /** When the lock in force on any of the keys ends (epoch ms), or null when none is locked now. */
  lockedUntil(keys: string[]): Promise<number | null>;
}

export interface RegulatorDeps {
  store: RegulationStore;
  clock: () => number;
  rules: RegulationRules;
}

const OPEN: RegulationState = { state: 'open', retryAfterSeconds: 0 };

/** The wait (ms) the n-th failure in a window asks of the next attempt; 0 below the rule's threshold. */
export function delayAfterFailures(rule: RegulationRule, n: number): number {
  if (n < rule.delayAfter || rule.delayAfter >= rule.lockAfter) return 0;
  const doublings = Math.min(n - rule.delayAfter, 32);
  return Math.min(rule.delay * 2 ** doublings, rule.maxDelay) * 1000;
}

/** How long failures must be kept (ms) for every rule to be decided. */
export function regulationRetentionMs(rules: RegulationRules): number {
  return Math.max(...Object.values(rules).map((r) => (r.findTime + Math.max(r.banTime, r.maxDelay)) * 1000));
}

function ruleOf(rules: RegulationRules, key: string): RegulationRule {
  const name = key.slice(0, key.indexOf(':'));
  if (!Object.hasOwn(rules, name) || rules[name as RuleName] === undefined) throw new Error(`regulation key without a rule: ${name}`);
  return rules[name as RuleName]!;
}

export function createRegulator(deps: RegulatorDeps): Regulator {
  const { store, clock, rules } = deps;

  /** When the key's lock and delay end (epoch ms, 0 when none). */
  async function keyState(key: string, now: number): Promise<{ lockedUntil: number; delayedUntil: number }> {
    const rule = ruleOf(rules, key);
    const findMs = rule.findTime * 1000;
    const failures = await store.failuresSince(key, now - findMs - Math.max(rule.banTime, rule.maxDelay) * 1000);
    let lockedUntil = 0;
    for (let i = rule.lockAfter - 1; i < failures.length; i++) {
      const last = failures[i]!;
      if (last - failures[i - rule.lockAfter + 1]! < findMs) lockedUntil = Math.max(lockedUntil, last + rule.banTime * 1000);
    }
    const latest = failures.at(-1);
    let delayedUntil = 0;
    if (latest !== undefined) {
      const inWindow = failures.filter((at) => latest - at < findMs).length;
      delayedUntil = latest + delayAfterFailures(rule, inWindow);
    }
    return { lockedUntil, delayedUntil };
  }

  const statesOf = (keys: string[], now: number) => Promise.all([...new Set(keys)].map((key) => keyState(key, now)));

  async function check(keys: string[]): Promise<RegulationState> {
    const now = clock();
    const states = await statesOf(keys, now);
    const lockEnd = Math.max(0, ...states.map((s) => s.lockedUntil));
    const delayEnd = Math.max(0, ...states.map((s) => s.delayedUntil));
    const end = Math.max(lockEnd, delayEnd);
    if (end <= now) return OPEN;
    return { state: lockEnd > now ? 'locked' : 'delayed', retryAfterSeconds: Math.ceil((end - now) / 1000) };
  }

  return {
    check,
    async fail(keys) {
      const now = clock();
      for (const key of new Set(keys)) await store.recordFailure(key, now);
      return check(keys);
    },
    async lockedUntil(keys) {
      const now = clock();
      const lockEnd = Math.max(0, ...(await statesOf(keys, now)).map((s) => s.lockedUntil));
      return lockEnd > now ? lockEnd : null;
    },
  };
}
