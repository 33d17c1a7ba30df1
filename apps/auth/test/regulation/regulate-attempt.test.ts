/**
 * The one regulation step of every sign-in attempt (src/regulation/regulate-attempt.ts), on the
 * real regulator and store: what is refused before the credential, what a failure counts, and
 * which audit lines and metrics each case writes, in order.
 */
import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createMetricsRegistry } from '@gatehouse/metrics';
import { createAuditor } from '../../src/audit/auditor.ts';
import { AuthError } from '../../src/errors/auth-error.ts';
import { regulateAttempt, type AttemptSubject } from '../../src/regulation/regulate-attempt.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { createAuthMetrics } from '../../src/metrics/auth-metrics.ts';
import { createRegulationStore } from '../../src/regulation/regulation-store.ts';
import { createRegulator, type RegulationRule } from '../../src/regulation/regulator.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const START = 1_790_000_000_000;
/** Two free failures, then a 30 s wait; the 4th failure in 15 min locks for 1 h. */
const RULE: RegulationRule = { delayAfter: 2, delay: 30, maxDelay: 60, lockAfter: 4, findTime: 900, banTime: 3600 };
const RULES = { account: RULE, device: RULE, mfa: RULE, ip: RULE };

describe.each(TEST_ENGINES)('regulateAttempt on %s', (engine) => {
  const database = useAuthDatabase(engine);
  let seq = 0;

  function setup() {
    seq += 1;
    const clock = { now: START };
    const store = createRegulationStore(database.db);
    const regulator = createRegulator({ store, clock: () => clock.now, rules: RULES });
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
    const audit = createAuditor({ logger });
    const registry = createMetricsRegistry({ processMetrics: false });
    const metrics = createAuthMetrics(registry);
    const username = `user${seq}`;
    const subject: AttemptSubject = {
      keys: [`account:${username}`, `ip:10.1.0.${seq}`],
      step: 'password',
      lockout: { username, ip: `10.1.0.${seq}`, step: 'password', known_device: false },
    };
    const events = () => lines.map(({ event, retry_after }) => (retry_after === undefined ? event : [event, retry_after]));
    const counted = async (key: string) => (await store.failuresSince(key, 0)).length;
    const metric = async (name: string) =>
      Object.fromEntries(((await registry.getSingleMetric(name)?.get())?.values ?? []).map((v) => [Object.values(v.labels).join('/'), v.value]));
    return { clock, regulator, audit, metrics, subject, events, counted, metric, deps: { regulator, audit, metrics } };
  }

  const refusal = () => new AuthError(401, 'invalid_credentials', 'Invalid username or password.');

  it('counts a failure once on every key, writes the step line, and throws the refusal as given', async () => {
    const { deps, audit, subject, events, counted, metric } = setup();
    const attempt = await regulateAttempt(deps, { ...subject, keys: [...subject.keys, subject.keys[0]!] });
    const given = refusal();
    await expect(attempt.fail(given, () => audit.record('login.password.failure', { username: 'x', ip: '10.0.0.1' }))).rejects.toBe(given);
    expect(await counted(subject.keys[0]!)).toBe(1);
    expect(await counted(subject.keys[1]!)).toBe(1);
    expect(events()).toEqual(['login.password.failure']);
    expect(await metric('auth_logins_total')).toEqual({ 'password/failure': 1 });
  });

  it('refuses a waiting key set with 429 and Retry-After before the credential, audited throttled, not counted', async () => {
    const { deps, subject, events, counted, metric, clock } = setup();
    for (let i = 0; i < 2; i++) await (await regulateAttempt(deps, subject)).fail(refusal()).catch(() => undefined);
    clock.now += 10_000;
    const thrown = await regulateAttempt(deps, subject).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(AuthError);
    expect(thrown).toMatchObject({ status: 429, code: 'too_many_attempts', headers: { 'Retry-After': '20' } });
    expect(await counted(subject.keys[0]!)).toBe(2);
    expect(events()).toEqual([['login.throttled', 20]]);
    expect(await metric('auth_logins_total')).toEqual({ 'password/failure': 2, 'password/delayed': 1 });
  });

  it('audits the failure that starts a lock after the step line and counts the lock once; a locked check is audited lockout', async () => {
    const { deps, audit, subject, events, metric, clock } = setup();
    const failure = () => audit.record('login.password.failure', { username: 'x', ip: '10.0.0.1' });
    for (let i = 0; i < 4; i++) {
      await (await regulateAttempt(deps, subject)).fail(refusal(), failure).catch(() => undefined);
      clock.now += 61_000;
    }
    expect(events()).toEqual(['login.password.failure', 'login.password.failure', 'login.password.failure', 'login.password.failure', 'login.lockout']);
    await expect(regulateAttempt(deps, subject)).rejects.toMatchObject({ status: 429, code: 'too_many_attempts' });
    expect(events().at(-1)).toBe('login.lockout');
    expect(await metric('auth_lockouts_total')).toEqual({ password: 1 });
    expect(await metric('auth_logins_total')).toEqual({ 'password/failure': 4, 'password/locked': 1 });
  });

  it('regulates an attempt without step or lockout alike, with no audit line and no metric', async () => {
    const { deps, subject, events, counted, metric } = setup();
    const quiet = { keys: subject.keys };
    for (let i = 0; i < 2; i++) await (await regulateAttempt(deps, quiet)).fail(refusal()).catch(() => undefined);
    await expect(regulateAttempt(deps, quiet)).rejects.toMatchObject({ status: 429, code: 'too_many_attempts', headers: { 'Retry-After': '30' } });
    expect(await counted(subject.keys[1]!)).toBe(2);
    expect(events()).toEqual([]);
    expect(await metric('auth_logins_total')).toEqual({});
  });
});
