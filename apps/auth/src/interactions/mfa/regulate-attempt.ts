/**
 * Brute-force regulation of the second factor. Rules:
 * - the keys are the password step's (the known device's, or the account's and the IP's) plus
 *   the account's second-factor key (regulation-keys.ts), so code guessing stays bounded per
 *   account on any device;
 * - a refused key set is answered 429 with Retry-After before any factor is checked, audited
 *   `login.lockout` when locked and `login.throttled` during a progressive delay;
 * - a wrong or replayed code counts against those keys, is audited `login.mfa.failure` and
 *   answered 401; the failure that starts a lock is also audited `login.lockout` and counted once;
 * - push refusals (denied, expired, rate-limited) never count.
 */
import type { Context } from 'koa';
import { AuthError, tooManyAttempts } from '../../errors/auth-error.ts';
import type { AuditFields } from '../../audit/audit-events.ts';
import type { SecondFactorMethod } from '../../metrics/auth-metrics.ts';
import type { HandlerServices } from '../deps.ts';
import type { PendingLogin } from '../interaction-state.ts';
import { secondFactorKeys } from '../regulation-keys.ts';

export type MfaFailure = AuditFields['login.mfa.failure']['reason'];

/** One regulated second-factor attempt: `fail` counts it and throws the 401. */
export interface MfaAttempt {
  fail(code: MfaFailure, message: string): Promise<never>;
}

export type RegulateAttemptDeps = Pick<HandlerServices, 'regulator' | 'knownDevices' | 'audit' | 'metrics'>;

export async function regulateAttempt(ctx: Context, deps: RegulateAttemptDeps, pending: PendingLogin, method: SecondFactorMethod): Promise<MfaAttempt> {
  const device = deps.knownDevices.recognise(ctx, pending.accountId);
  const keys = secondFactorKeys({ username: pending.username, ip: ctx.ip, device });
  const lockout = { username: pending.username, account_id: pending.accountId, ip: ctx.ip, step: 'mfa', known_device: device !== undefined } as const;
  const ban = await deps.regulator.check(keys);
  if (ban.state !== 'open') {
    if (ban.state === 'locked') deps.audit.record('login.lockout', lockout);
    else deps.audit.record('login.throttled', { ...lockout, retry_after: ban.retryAfterSeconds });
    deps.metrics.login('mfa', ban.state);
    throw tooManyAttempts(ban.retryAfterSeconds);
  }
  return {
    async fail(code, message) {
      const after = await deps.regulator.fail(keys);
      deps.audit.record('login.mfa.failure', { account_id: pending.accountId, ip: ctx.ip, reason: code, method });
      deps.metrics.login('mfa', 'failure');
      deps.metrics.secondFactor(method, 'failure');
      if (after.state === 'locked') {
        deps.audit.record('login.lockout', lockout);
        deps.metrics.lockout('mfa');
      }
      throw new AuthError(401, code, message);
    },
  };
}
