/**
 * Brute-force protection over HTTP (regulation/regulator.ts, regulation/regulation-keys.ts,
 * regulation/known-device.ts): guessing stays bounded, but failures cannot be turned into a
 * lockout of the real user on their known device. Time moves only by the injected clock.
 * The shipped account defaults apply (5 free failures, 30 s doubling to 15 min, lock at 30 in
 * 24 h for 1 h); the IP budget is lowered from 100 to 10 in 15 min to keep the spraying test short.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { KNOWN_DEVICE_COOKIE } from '../../src/regulation/known-device.ts';
import { delayAfterFailures } from '../../src/regulation/regulator.ts';
import { authorizeUrl, CookieJar, form, request, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';
import { jsonBody } from '../support/index.ts';

const SEC = 1000;

describe.each(TEST_ENGINES)('brute-force protection on %s', (engine) => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  const lines: Record<string, unknown>[] = [];
  let nextIp = 1;
  /** A fresh client address from a block of its own for each call. */
  const freshIp = () => `198.51.100.${nextIp++}`;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    server = await startServer({
      engine,
      clock: () => clock.now,
      logger: pino({ level: 'info' }, sink),
      env: { TRUST_PROXY: 'true', AUTH_REGULATION_IP_MAX_RETRIES: '10' },
    });
  });
  afterAll(() => server.close());

  const audits = (event: string, username: string) => lines.filter((l) => l.event === event && l.username === username);
  /** One metric series' value, or undefined when it is not exported (yet). */
  async function series(name: string): Promise<number | undefined> {
    const line = (await server.app.metrics.metrics()).split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.slice(name.length + 1));
  }

  /** A browser at `ip`, holding only a known-device cookie when given one. */
  function browser(ip: string, device?: string): CookieJar {
    const jar = new CookieJar({ 'x-forwarded-for': ip });
    if (device) jar.cookies.set(KNOWN_DEVICE_COOKIE, device);
    return jar;
  }

  async function startLogin(jar: CookieJar): Promise<string> {
    const page = await request(jar, authorizeUrl(server));
    expect(page.status).toBe(200);
    return uidOf(page.text);
  }

  const passwordStep = (jar: CookieJar, uid: string, username: string, password: string) =>
    request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username, password }) });
  const codeStep = (jar: CookieJar, uid: string, code: string) => request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
  const totp = (user: TestUser) => server.app.services.totp.generate(user.totpSecret, clock.now);

  /** A full sign-in (password and code) in `jar`; returns the known-device cookie it carries afterwards. */
  async function signIn(jar: CookieJar, user: TestUser): Promise<string> {
    const uid = await startLogin(jar);
    expect((await passwordStep(jar, uid, user.username, user.password)).status).toBe(200);
    const done = await codeStep(jar, uid, await totp(user));
    expect(done.status).toBe(302);
    expect(new URL(done.location!).searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
    const device = jar.cookies.get(KNOWN_DEVICE_COOKIE);
    expect(device).toMatch(/^[\w-]{22}\.\d+\.[\w-]{43}$/);
    return device!;
  }

  function expectRefused(res: { status: number; headers: Headers; text: string }, seconds: number, message: string) {
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe(String(seconds));
    expect(res.text).toContain(`Too many attempts. Try again in ${message}.`);
  }

  it('a typing user waits 30 s after 5 failures, then 60 s; the right password passes once the wait is over', async () => {
    const user = await server.createUser();
    const jar = browser(freshIp());
    const uid = await startLogin(jar);
    for (let i = 0; i < 5; i++) expect((await passwordStep(jar, uid, user.username, `wrong-${i}`)).status).toBe(401);
    // Refused before the password is checked, even the right one; not counted.
    expectRefused(await passwordStep(jar, uid, user.username, user.password), 30, '30 seconds');
    clock.now += 10 * SEC;
    expectRefused(await passwordStep(jar, uid, user.username, 'wrong-again'), 20, '20 seconds');
    const json = await request(jar, `${server.issuer}/login`, { method: 'POST', ...jsonBody({ username: user.username, password: user.password }) });
    expect(json.status).toBe(429);
    expect(json.json()).toMatchObject({ error: 'too_many_attempts', error_description: 'Too many attempts. Try again in 20 seconds.' });
    clock.now += 20 * SEC;
    expect((await passwordStep(jar, uid, user.username, 'wrong-6')).status).toBe(401);
    expectRefused(await passwordStep(jar, uid, user.username, user.password), 60, '1 minute');
    clock.now += 60 * SEC;
    expect((await passwordStep(jar, uid, user.username, user.password)).status).toBe(200);
    expect(audits('login.throttled', user.username).map((l) => [l.retry_after, l.known_device, l.step])).toEqual([
      [30, false, 'password'],
      [20, false, 'password'],
      [20, false, 'password'],
      [60, false, 'password'],
    ]);
    expect(audits('login.lockout', user.username)).toEqual([]);
    // Refusals during a delay are `delayed`, not lockouts (this test runs first on its server).
    expect(await series('auth_logins_total{step="password",outcome="delayed"}')).toBe(4);
    expect(await series('auth_logins_total{step="password",outcome="locked"}')).toBeUndefined();
    expect(await series('auth_lockouts_total{step="password"}')).toBeUndefined();
  });

  it('an attacker failing from many addresses is bounded (30 guesses in 5 h 15 min, then a 1 h lock) and does not lock the user out on their known device', async () => {
    const user = await server.createUser();
    const home = freshIp();
    const device = await signIn(browser(home), user);
    const start = clock.now;
    /** One guess from a new browser at a new address (a sign-in page lives 10 minutes: one per guess). */
    const guess = async (password: string) => {
      const jar = browser(freshIp());
      return passwordStep(jar, await startLogin(jar), user.username, password);
    };
    for (let n = 1; n <= 30; n++) {
      const wait = delayAfterFailures(server.config.regulation.account, n - 1);
      if (wait > 0) {
        // Guessing before the wait is over is refused and not counted.
        expect((await guess(`guess-${n}`)).headers.get('retry-after')).toBe(String(wait / SEC));
        clock.now += wait;
      }
      expect((await guess(`guess-${n}`)).status).toBe(401);
    }
    expect(clock.now - start).toBe((30 + 60 + 120 + 240 + 480 + 20 * 900) * SEC);
    expect(audits('login.lockout', user.username)).toHaveLength(1);
    expect(await series('auth_lockouts_total{step="password"}')).toBe(1);
    // Locked for every unknown browser, whatever its address, even with the right password.
    const stranger = browser(freshIp());
    expectRefused(await passwordStep(stranger, await startLogin(stranger), user.username, user.password), 3600, '60 minutes');

    // The user's own browser (its SSO session gone, the known-device cookie kept) signs in,
    // at home and even from an address the attacker used.
    clock.now += 60 * SEC;
    const again = await signIn(browser(home, device), user);
    expect(again).not.toBe(device);
    clock.now += 60 * SEC;
    await signIn(browser('198.51.100.1', again), user);
    // The device is recognised for this account only: another account from it is an unknown browser.
    const other = await server.createUser();
    const shared = browser(home, again);
    const uid = await startLogin(shared);
    expect((await passwordStep(shared, uid, other.username, other.password)).status).toBe(200);
  });

  it('spraying many accounts from one address locks that address (10 in 15 min for 1 h), not the accounts', async () => {
    const attacker = freshIp();
    const victim = await server.createUser();
    clock.now += 60 * SEC;
    const device = await signIn(browser(freshIp()), victim);
    const sprayed: TestUser[] = [];
    for (let i = 0; i < 10; i++) {
      const target = i % 2 === 0 ? await server.createUser() : { username: `nobody-${i}-${nextIp}`, password: '', totpSecret: '' };
      sprayed.push(target);
      const jar = browser(attacker);
      expect((await passwordStep(jar, await startLogin(jar), target.username, 'Winter2026!')).status).toBe(401);
    }
    const jar = browser(attacker);
    const uid = await startLogin(jar);
    expectRefused(await passwordStep(jar, uid, victim.username, victim.password), 3600, '60 minutes');
    // The sprayed accounts took one failure each: no delay anywhere else.
    const elsewhere = browser(freshIp());
    expect((await passwordStep(elsewhere, await startLogin(elsewhere), sprayed[0]!.username, 'still-wrong')).status).toBe(401);
    const victimElsewhere = browser(freshIp());
    expect((await passwordStep(victimElsewhere, await startLogin(victimElsewhere), victim.username, victim.password)).status).toBe(200);
    // The victim's known device behind the locked address still signs in (it counts only against itself).
    clock.now += 60 * SEC;
    await signIn(browser(attacker, device), victim);
    clock.now += 3600 * SEC;
    const later = browser(attacker);
    expect((await passwordStep(later, await startLogin(later), victim.username, victim.password)).status).toBe(200);
  });

  it('the second factor stays bounded per account on every device: 5 free wrong codes, then waits, then a lock', async () => {
    const user = await server.createUser();
    const device = await signIn(browser(freshIp()), user);
    clock.now += 60 * SEC;
    // An attacker who has the password and the user's device cookie (a stolen laptop).
    const jar = browser(freshIp(), device);
    const uid = await startLogin(jar);
    expect((await passwordStep(jar, uid, user.username, user.password)).status).toBe(200);
    const right = await totp(user);
    const wrong = right === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expect((await codeStep(jar, uid, wrong)).status).toBe(401);
    expectRefused(await codeStep(jar, uid, right), 30, '30 seconds');
    // Another browser with the password: its password step is clean, but the account's codes wait.
    const other = browser(freshIp());
    const otherUid = await startLogin(other);
    expect((await passwordStep(other, otherUid, user.username, user.password)).status).toBe(200);
    expectRefused(await codeStep(other, otherUid, right), 30, '30 seconds');
    expect(audits('login.throttled', user.username).map((l) => [l.step, l.known_device, l.account_id !== undefined])).toEqual([
      ['mfa', true, true],
      ['mfa', false, true],
    ]);
    // Keep guessing at the allowed pace (a sign-in page lives 10 minutes: a new one for each
    // guess, whose password step waits too, the device having failed): 30 wrong codes take hours,
    // then the lock.
    let latest = uid;
    for (let n = 6; n <= 30; n++) {
      clock.now += delayAfterFailures(server.config.regulation.account, n - 1);
      latest = await startLogin(jar);
      expect((await passwordStep(jar, latest, user.username, user.password)).status).toBe(200);
      expect((await codeStep(jar, latest, wrong)).status).toBe(401);
    }
    expect(audits('login.lockout', user.username).map((l) => [l.step, l.known_device])).toEqual([['mfa', true]]);
    clock.now += 300 * SEC;
    expectRefused(await codeStep(jar, latest, await totp(user)), 3300, '55 minutes');
    // The lock is the device's and the account's second factor's: the password step elsewhere
    // passes, its code step is refused.
    const third = browser(freshIp());
    const thirdUid = await startLogin(third);
    expect((await passwordStep(third, thirdUid, user.username, user.password)).status).toBe(200);
    expectRefused(await codeStep(third, thirdUid, await totp(user)), 3300, '55 minutes');
    clock.now += 3300 * SEC;
  });
});
