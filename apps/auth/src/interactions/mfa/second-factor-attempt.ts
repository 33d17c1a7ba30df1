/**
 * The regulated second factor (the shared step is regulation/regulate-attempt.ts). Rules:
 * - the keys are the password step's (the known device's, or the account's and the IP's) plus
 *   the account's second-factor key (regulation/regulation-keys.ts), so code guessing stays bounded per
 *   account on any device;
 * - a refused key set is answered 429 with Retry-After before any factor is checked, audited
 *   `login.lockout` when locked and `login.throttled` during a progressive delay, step `mfa`;
 * - a wrong or replayed code counts against those keys, is audited `login.mfa.failure` with its
 *   method and answered 401; the failure that starts a lock is also audited `login.lockout` and
 *   counted once;
 * - push refusals (denied, expired, rate-limited) never count.
 */
import type { Context } from 'koa';
import { AuthError, type ErrorDetail } from '../../errors/auth-error.ts';
import type { AuditFields } from '../../audit/audit-events.ts';
import type { SecondFactorMethod } from '../../metrics/auth-metrics.ts';
import type { HandlerServices } from '../deps.ts';
import type { PendingLogin } from '../interaction-state.ts';
import { regulateAttempt, type RegulateAttemptDeps } from '../../regulation/regulate-attempt.ts';
import { secondFactorKeys } from '../../regulation/regulation-keys.ts';

export type MfaFailure = AuditFields['login.mfa.failure']['reason'];

/** One regulated second-factor attempt: `fail` counts it and throws the 401. */
export interface MfaAttempt {
  fail(code: MfaFailure, message: string, detail?: ErrorDetail): Promise<never>;
}

export type SecondFactorAttemptDeps = RegulateAttemptDeps & Pick<HandlerServices, 'knownDevices'>;

export async function regulateSecondFactor(ctx: Context, deps: SecondFactorAttemptDeps, pending: PendingLogin, method: SecondFactorMethod): Promise<MfaAttempt> {
  const device = deps.knownDevices.recognise(ctx, pending.accountId);
  const attempt = await regulateAttempt(deps, {
    keys: secondFactorKeys({ username: pending.username, ip: ctx.ip, device }),
    step: 'mfa',
    lockout: { username: pending.username, account_id: pending.accountId, ip: ctx.ip, step: 'mfa', known_device: device !== undefined },
  });
  return {
    fail: (code, message, detail) =>
      attempt.fail(new AuthError(401, code, message, detail ? { detail } : {}), () => {
        deps.audit.record('login.mfa.failure', { account_id: pending.accountId, ip: ctx.ip, reason: code, method });
        deps.metrics.secondFactor(method, 'failure');
      }),
  };
}
