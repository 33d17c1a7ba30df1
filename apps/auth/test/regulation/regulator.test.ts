import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createRegulationStore } from '../../src/regulation/regulation-store.ts';
import { createRegulator, delayAfterFailures, regulationRetentionMs, type RegulationRule, type RegulationRules } from '../../src/regulation/regulator.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const START = 1_790_000_000_000;
const SEC = 1000;
const MIN = 60_000;
const OPEN = { state: 'open', retryAfterSeconds: 0 };
const delayed = (retryAfterSeconds: number) => ({ state: 'delayed', retryAfterSeconds });
const locked = (retryAfterSeconds: number) => ({ state: 'locked', retryAfterSeconds });

/** The shipped defaults for accounts: 5 free failures, then 30 s doubling to 15 min, a 1 h lock at 30 failures in 24 h. */
const ACCOUNT: RegulationRule = { delayAfter: 5, delay: 30, maxDelay: 900, lockAfter: 30, findTime: 86_400, banTime: 3600 };
/** A lock-only rule (delayAfter = lockAfter): the regulation before progressive delays, 5 in 15 min ban 15 min. */
const LOCK_ONLY: RegulationRule = { delayAfter: 5, delay: 0, maxDelay: 0, lockAfter: 5, findTime: 900, banTime: 900 };
const RULES: RegulationRules = { account: ACCOUNT, device: ACCOUNT, mfa: ACCOUNT, ip: LOCK_ONLY };

describe('progressive delay values', () => {
  it('are free up to delayAfter failures, then double from delay up to maxDelay', () => {
    const waits = Array.from({ length: 31 }, (_, n) => delayAfterFailures(ACCOUNT, n) / SEC);
    expect(waits.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(waits.slice(5, 12)).toEqual([30, 60, 120, 240, 480, 900, 900]);
    expect(waits[30]).toBe(900);
    expect(delayAfterFailures(ACCOUNT, 10_000)).toBe(900 * SEC);
  });

  it('are always 0 for a lock-only rule', () => {
    expect([0, 4, 5, 6, 100].map((n) => delayAfterFailures(LOCK_ONLY, n))).toEqual([0, 0, 0, 0, 0]);
  });

  it('keep failures long enough for the slowest rule to be decided', () => {
    // account: 24 h window + 1 h lock; ip: 15 min window + 15 min ban.
    expect(regulationRetentionMs(RULES)).toBe((86_400 + 3600) * SEC);
    const shortLock = { ...ACCOUNT, banTime: 60 };
    // A lock shorter than the longest delay: the delay decides.
    expect(regulationRetentionMs({ account: shortLock, device: shortLock, mfa: shortLock, ip: LOCK_ONLY })).toBe((86_400 + 900) * SEC);
  });
});

describe.each(TEST_ENGINES)('regulator on %s', (engine) => {
  const database = useAuthDatabase(engine);
  let seq = 0;

  /** A regulator on fresh keys with a movable clock. */
  function setup(rules: RegulationRules = RULES) {
    seq += 1;
    const clock = { now: START };
    const regulator = createRegulator({ store: createRegulationStore(database.db), clock: () => clock.now, rules });
    return { clock, regulator, account: `account:user${seq}`, device: `device:dev${seq}`, ip: `ip:10.0.0.${seq}` };
  }

  it('lets 4 failures through, then asks 30 s after the 5th, 60 s after the 6th (exact Retry-After)', async () => {
    const { clock, regulator, account } = setup();
    for (let i = 0; i < 4; i++) expect(await regulator.fail([account])).toEqual(OPEN);
    expect(await regulator.fail([account])).toEqual(delayed(30));
    clock.now += 10_500;
    expect(await regulator.check([account])).toEqual(delayed(20));
    clock.now = START + 30 * SEC - 1;
    expect(await regulator.check([account])).toEqual(delayed(1));
    clock.now = START + 30 * SEC;
    expect(await regulator.check([account])).toEqual(OPEN);
    expect(await regulator.fail([account])).toEqual(delayed(60));
    clock.now += 60 * SEC;
    expect(await regulator.fail([account])).toEqual(delayed(120));
  });

  it('locks at 30 failures in the window, each after its delay, for the ban time; the lock then lifts', async () => {
    const { clock, regulator, account } = setup();
    let state = await regulator.fail([account]);
    for (let n = 2; n < 30; n++) {
      expect(state.state).toBe(n <= 5 ? 'open' : 'delayed');
      clock.now += state.retryAfterSeconds * SEC;
      state = await regulator.fail([account]);
    }
    expect(state.state).toBe('delayed'); // 29 failures
    const elapsed = clock.now - START;
    // 5 free, then 30 + 60 + 120 + 240 + 480 s and 900 s for each of the 19 others.
    expect(elapsed).toBe((30 + 60 + 120 + 240 + 480 + 19 * 900) * SEC);
    clock.now += 900 * SEC;
    const lockedAt = clock.now;
    expect(await regulator.fail([account])).toEqual(locked(3600));
    clock.now = lockedAt + 3600 * SEC - 1;
    expect(await regulator.check([account])).toEqual(locked(1));
    clock.now = lockedAt + 3600 * SEC;
    expect(await regulator.check([account])).toEqual(OPEN);
    // Still 30 failures inside 24 h: the next one locks again at once (Keycloak's temporary lockout, repeated).
    expect(await regulator.fail([account])).toEqual(locked(3600));
  });

  it('forgets failures older than the window: for the delay and for the lock', async () => {
    const rule: RegulationRule = { delayAfter: 3, delay: 10, maxDelay: 40, lockAfter: 4, findTime: 600, banTime: 300 };
    const { clock, regulator, account } = setup({ ...RULES, account: rule });
    await regulator.fail([account]);
    clock.now += 300 * SEC;
    await regulator.fail([account]);
    expect(await regulator.fail([account])).toEqual(delayed(10));
    // The first failure is exactly findTime older than the next one: out of its window.
    clock.now = START + 600 * SEC;
    expect(await regulator.fail([account])).toEqual(delayed(10));
    clock.now = START + 600 * SEC + 1;
    expect(await regulator.check([account])).toEqual(delayed(10));
    clock.now += 10 * SEC;
    // 4 failures within 600 s (300..601): the lock.
    expect(await regulator.fail([account])).toEqual(locked(300));
    // Long after, alone in its window, a failure is free again.
    clock.now += 2 * 600 * SEC;
    expect(await regulator.fail([account])).toEqual(OPEN);
  });

  it('a lock-only rule bans after the 5th failure within 15 minutes, with the exact retry delay', async () => {
    const { clock, regulator, ip } = setup();
    for (let i = 0; i < 4; i++) {
      expect(await regulator.fail([ip])).toEqual(OPEN);
      clock.now += MIN;
    }
    expect(await regulator.fail([ip])).toEqual(locked(900));
    clock.now += 10_500;
    expect(await regulator.check([ip])).toEqual(locked(890));
    clock.now = START + 4 * MIN + 900 * SEC;
    expect(await regulator.check([ip])).toEqual(OPEN);
  });

  it('keeps keys independent: a device’s failures do not touch the account, nor the account’s the IP', async () => {
    const { regulator, account, device, ip } = setup();
    for (let i = 0; i < 5; i++) await regulator.fail([account]);
    expect(await regulator.check([account])).toEqual(delayed(30));
    expect(await regulator.check([device])).toEqual(OPEN);
    expect(await regulator.check([ip])).toEqual(OPEN);
    for (let i = 0; i < 4; i++) expect(await regulator.fail([device])).toEqual(OPEN);
    expect(await regulator.check([`${account}-other`, ip])).toEqual(OPEN);
  });

  it('checks several keys together: locked over delayed, the longest wait wins', async () => {
    const { clock, regulator, account, ip } = setup();
    for (let i = 0; i < 5; i++) await regulator.fail([account]);
    expect(await regulator.check([ip, account])).toEqual(delayed(30));
    clock.now += 5 * SEC;
    for (let i = 0; i < 5; i++) await regulator.fail([ip]);
    expect(await regulator.check([account, ip])).toEqual(locked(900));
    // A delay longer than the lock: still `locked`, with the longer wait.
    const short = setup({ ...RULES, ip: { ...LOCK_ONLY, banTime: 10 } });
    for (let i = 0; i < 5; i++) await short.regulator.fail([short.account, short.ip]);
    expect(await short.regulator.check([short.account, short.ip])).toEqual(locked(30));
  });

  it('lockedUntil: the exact end of a lock in force, null for a mere delay and once the lock ends', async () => {
    const { clock, regulator, account, ip } = setup();
    for (let i = 0; i < 5; i++) await regulator.fail([account]);
    expect(await regulator.lockedUntil([account])).toBeNull(); // delayed, not locked
    for (let i = 0; i < 5; i++) await regulator.fail([ip]);
    clock.now += 10_500;
    expect(await regulator.lockedUntil([account, ip])).toBe(START + 900 * SEC);
    // A delay longer than the lock does not stretch it.
    const short = setup({ ...RULES, ip: { ...LOCK_ONLY, banTime: 10 } });
    for (let i = 0; i < 5; i++) await short.regulator.fail([short.account, short.ip]);
    expect(await short.regulator.lockedUntil([short.account, short.ip])).toBe(START + 10 * SEC);
    clock.now = START + 900 * SEC - 1;
    expect(await regulator.lockedUntil([account, ip])).toBe(START + 900 * SEC);
    clock.now += 1;
    expect(await regulator.lockedUntil([account, ip])).toBeNull();
  });

  it('counts a key passed twice in one failure once', async () => {
    const { regulator, account } = setup();
    for (let i = 0; i < 4; i++) expect(await regulator.fail([account, account])).toEqual(OPEN);
    expect(await regulator.fail([account])).toEqual(delayed(30));
  });

  it('refuses a key without a rule', async () => {
    const { regulator } = setup();
    await expect(regulator.check(['user:alice'])).rejects.toThrow('regulation key without a rule: user');
  });
});
