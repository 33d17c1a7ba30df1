import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createRegulationStore } from '../../src/regulation/regulation-store.ts';
import { createRegulator, type Regulator } from '../../src/regulation/regulator.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const START = 1_790_000_000_000;
const MIN = 60_000;
const OPEN = { banned: false, retryAfterSeconds: 0 };

describe.each(TEST_ENGINES)('regulator on %s', (engine) => {
  const database = useAuthDatabase(engine);
  let seq = 0;

  /** A regulator with 5 retries in 15 min, banning for 15 min, on fresh keys, with a movable clock. */
  function setup() {
    seq += 1;
    const clock = { now: START };
    const regulator: Regulator = createRegulator({
      store: createRegulationStore(database.db),
      clock: () => clock.now,
      maxRetries: 5,
      findTime: 900,
      banTime: 900,
    });
    return { clock, regulator, account: `account:user${seq}`, ip: `ip:10.0.0.${seq}` };
  }

  it('bans after the 5th failure within 15 minutes, with the exact retry delay', async () => {
    const { clock, regulator, account, ip } = setup();
    for (let i = 0; i < 4; i++) {
      expect(await regulator.fail([account, ip])).toEqual(OPEN);
      clock.now += MIN;
    }
    // 5th failure at START + 4 min.
    expect(await regulator.fail([account, ip])).toEqual({ banned: true, retryAfterSeconds: 900 });
    clock.now += 10_500;
    expect(await regulator.check([account])).toEqual({ banned: true, retryAfterSeconds: 890 });
    expect(await regulator.check([ip])).toEqual({ banned: true, retryAfterSeconds: 890 });
  });

  it('lifts the ban once banTime has passed since the failure that reached the threshold', async () => {
    const { clock, regulator, account } = setup();
    for (let i = 0; i < 5; i++) await regulator.fail([account]);
    clock.now = START + 900_000 - 1;
    expect(await regulator.check([account])).toEqual({ banned: true, retryAfterSeconds: 1 });
    clock.now = START + 900_000;
    expect(await regulator.check([account])).toEqual(OPEN);
    // One more failure after the ban does not re-ban: the old failures are outside its window.
    expect(await regulator.fail([account])).toEqual(OPEN);
  });

  it('does not count failures older than findTime', async () => {
    const { clock, regulator, account } = setup();
    for (let i = 0; i < 4; i++) await regulator.fail([account]);
    clock.now = START + 15 * MIN; // the first four are exactly findTime old now
    expect(await regulator.fail([account])).toEqual(OPEN);
    clock.now = START + 15 * MIN + 1;
    for (let i = 0; i < 3; i++) expect(await regulator.fail([account])).toEqual(OPEN);
    expect(await regulator.fail([account])).toEqual({ banned: true, retryAfterSeconds: 900 });
  });

  it('keeps account and IP keys independent', async () => {
    const { regulator, account, ip } = setup();
    const otherAccount = `${account}-other`;
    for (let i = 0; i < 5; i++) await regulator.fail([account]);
    expect(await regulator.check([account])).toEqual({ banned: true, retryAfterSeconds: 900 });
    expect(await regulator.check([ip])).toEqual(OPEN);
    expect(await regulator.check([otherAccount, ip])).toEqual(OPEN);
    // Checking several keys: banned if any is.
    expect(await regulator.check([otherAccount, ip, account])).toEqual({ banned: true, retryAfterSeconds: 900 });
  });

  it('reports the longest remaining ban across keys', async () => {
    const { clock, regulator, account, ip } = setup();
    for (let i = 0; i < 5; i++) await regulator.fail([ip]);
    clock.now += 5 * MIN;
    for (let i = 0; i < 5; i++) await regulator.fail([account]);
    expect(await regulator.check([ip])).toEqual({ banned: true, retryAfterSeconds: 600 });
    expect(await regulator.check([ip, account])).toEqual({ banned: true, retryAfterSeconds: 900 });
  });

  it('counts a key passed twice in one failure once', async () => {
    const { regulator, account } = setup();
    for (let i = 0; i < 4; i++) expect(await regulator.fail([account, account])).toEqual(OPEN);
    expect(await regulator.fail([account])).toEqual({ banned: true, retryAfterSeconds: 900 });
  });
});
