/**
 * One regulated sign-in attempt: the password step, the second factor, a passwordless passkey,
 * and the account page proving the current password or code again. Rules:
 * - the attempt's keys (regulation-keys.ts) are checked before its credential is; a refused key
 *   set is answered 429 with Retry-After, even for a correct credential, and is not counted;
 * - a refused check of an attempt that names its account (`lockout`) is audited `login.lockout`
 *   while locked and `login.throttled` during a progressive delay; a login `step` counts the
 *   refusal in the login metrics;
 * - a refused credential counts once against every key; then the step writes its own failure
 *   line, the step's failure is counted, and when that failure starts a lock the lock is audited
 *   `login.lockout` (when named) and counted once; the refusal is thrown as the step made it;
 * - the account page's re-checks name no step and no lockout: they are regulated alike, and
 *   their pages audit their own refusals.
 */
import { tooManyAttempts } from '../errors/auth-error.ts';
import type { AuditFields } from '../audit/audit-events.ts';
import type { LoginStep } from '../metrics/auth-metrics.ts';
import type { Auditor } from '../audit/auditor.ts';
import type { AuthMetrics } from '../metrics/auth-metrics.ts';
import type { Regulator } from './regulator.ts';

export interface RegulateAttemptDeps {
  regulator: Regulator;
  audit: Auditor;
  metrics: AuthMetrics;
}

export interface AttemptSubject {
  /** What the attempt counts against (regulation-keys.ts). */
  keys: string[];
  /** The login step counted in the metrics; none for the account page's re-checks. */
  step?: LoginStep;
  /** Who the lockout and throttling lines name; none while the attempt's account is unknown. */
  lockout?: AuditFields['login.lockout'];
}

/** An attempt whose keys were open when it began. */
export interface RegulatedAttempt {
  /**
   * Counts the attempt as failed and throws `refusal`. `auditFailure` writes the step's own
   * failure line, after the failure is recorded and before a lock it starts is audited.
   */
  fail(refusal: Error, auditFailure?: () => void): Promise<never>;
}

export async function regulateAttempt(deps: RegulateAttemptDeps, subject: AttemptSubject): Promise<RegulatedAttempt> {
  const { keys, step, lockout } = subject;
  const ban = await deps.regulator.check(keys);
  if (ban.state !== 'open') {
    if (lockout && ban.state === 'locked') deps.audit.record('login.lockout', lockout);
    if (lockout && ban.state === 'delayed') deps.audit.record('login.throttled', { ...lockout, retry_after: ban.retryAfterSeconds });
    if (step) deps.metrics.login(step, ban.state);
    throw tooManyAttempts(ban.retryAfterSeconds);
  }
  return {
    async fail(refusal, auditFailure) {
      const after = await deps.regulator.fail(keys);
      auditFailure?.();
      if (step) deps.metrics.login(step, 'failure');
      if (after.state === 'locked') {
        if (lockout) deps.audit.record('login.lockout', lockout);
        if (step) deps.metrics.lockout(step);
      }
      throw refusal;
    },
  };
}
