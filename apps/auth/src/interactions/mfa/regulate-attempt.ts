/**
 * Brute-force regulation of the second factor. Rules:
 * - a banned account or IP is refused before any factor is checked (429 with Retry-After),
 *   audited `login.lockout`;
 * - a wrong or replayed code counts against the account and the IP like a wrong password (the
 *   counters are shared, regulation-keys.ts), is audited `login.mfa.failure` and answered 401;
 *   the failure that reaches the ban is also audited `login.lockout`;
 * - push refusals (denied, expired, rate-limited) never count.
 */
import type { Context } from 'koa';
import { AuthError, tooManyAttempts } from '../../errors/auth-error.ts';
import { audit, type AuditFields } from '../../logging/logger.ts';
import type { SecondFactorMethod } from '../../metrics/auth-metrics.ts';
import type { HandlerServices } from '../deps.ts';
import type { PendingLogin } from '../interaction-state.ts';
import { regulationKeys } from '../regulation-keys.ts';

export type MfaFailure = AuditFields['login.mfa.failure']['reason'];

/** One regulated second-factor attempt: `fail` counts it and throws the 401. */
export interface MfaAttempt {
  fail(code: MfaFailure, message: string): Promise<never>;
}

export type RegulateAttemptDeps = Pick<HandlerServices, 'regulator' | 'logger' | 'metrics'>;

export async function regulateAttempt(ctx: Context, deps: RegulateAttemptDeps, pending: PendingLogin, method: SecondFactorMethod): Promise<MfaAttempt> {
  const keys = regulationKeys(pending.username, ctx.ip);
  const lockout = { username: pending.username, account_id: pending.accountId, ip: ctx.ip, step: 'mfa' } as const;
  const ban = await deps.regulator.check(keys);
  if (ban.banned) {
    audit(deps.logger, 'login.lockout', lockout);
    deps.metrics.login('mfa', 'locked');
    throw tooManyAttempts(ban.retryAfterSeconds);
  }
  return {
    async fail(code, message) {
      const after = await deps.regulator.fail(keys);
      audit(deps.logger, 'login.mfa.failure', { account_id: pending.accountId, ip: ctx.ip, reason: code, method });
      deps.metrics.login('mfa', 'failure');
      deps.metrics.secondFactor(method, 'failure');
      if (after.banned) {
        audit(deps.logger, 'login.lockout', lockout);
        deps.metrics.lockout('mfa');
      }
      throw new AuthError(401, code, message);
    },
  };
}
