/**
 * The recovery-code method. Rules:
 * - one unused recovery code of the account is accepted, once (recovery-code-store.ts);
 * - a used code is refused with 401 code_replayed, anything else unknown with 401 invalid_code;
 *   both count toward the lockout like a wrong TOTP code (second-factor-attempt.ts);
 * - an accepted code is audited `recovery.used`.
 */
import type { Context, Next } from 'koa';
import type { HandlerServices } from '../deps.ts';
import { completeLogin, type CompleteLoginDeps } from './complete-login.ts';
import type { MfaRequest } from './read-mfa-request.ts';
import type { MfaAttempt } from './second-factor-attempt.ts';

export type VerifyRecoveryCodeDeps = CompleteLoginDeps & Pick<HandlerServices, 'recoveryCodes' | 'audit'>;

export async function verifyRecoveryCode(
  ctx: Context,
  next: Next,
  deps: VerifyRecoveryCodeDeps,
  request: MfaRequest,
  code: string,
  attempt: MfaAttempt,
): Promise<void> {
  const { pending } = request;
  const result = await deps.recoveryCodes.consume(pending.accountId, code);
  if (result === 'used') return attempt.fail('code_replayed', 'That recovery code was already used. Each recovery code works once.', 'code_replayed.recoveryCode');
  if (result !== 'accepted') return attempt.fail('invalid_code', 'That recovery code is not valid.', 'invalid_code.recoveryCode');
  deps.audit.record('recovery.used', { account_id: pending.accountId, ip: ctx.ip });
  await completeLogin(ctx, next, deps, request, pending.accountId, { method: 'recovery' });
}
