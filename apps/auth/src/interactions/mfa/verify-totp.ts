/**
 * The TOTP method. Rules:
 * - RFC 6238 (SHA-1, 6 digits, 30 s, ±1 step) on the injected clock; anything but six digits is
 *   a wrong code (401 invalid_code);
 * - the secret is the account's pending one while this login enrolls (its pending login says so,
 *   set at the password step only for an account without any second factor:
 *   login/prepare-second-factor.ts) or else the account's own; a code posted for an account with
 *   neither is never an enrollment: with another second factor (a device, a passkey, recovery
 *   codes) it is 400 factor_not_enrolled on the challenge, else the login starts over (400
 *   password_required);
 * - the first valid code of an enrollment stores the secret (enroll-totp.ts) and logs in;
 * - each time step is accepted once per account, so a replayed code is refused (401 code_replayed);
 * - wrong and replayed codes count toward the lockout (second-factor-attempt.ts).
 */
import type { Context, Next } from 'koa';
import { AuthError } from '../../errors/auth-error.ts';
import type { HandlerServices } from '../deps.ts';
import { accountFactors, hasSecondFactor, type AccountFactorsDeps } from './account-factors.ts';
import { completeLogin, type CompleteLoginDeps } from './complete-login.ts';
import { enrollTotp, type EnrollTotpDeps } from './enroll-totp.ts';
import type { MfaRequest } from './read-mfa-request.ts';
import type { MfaAttempt } from './second-factor-attempt.ts';

export type VerifyTotpDeps = CompleteLoginDeps & EnrollTotpDeps & AccountFactorsDeps & Pick<HandlerServices, 'accounts' | 'totpEnrollments' | 'totp' | 'clock'>;

export async function verifyTotp(ctx: Context, next: Next, deps: VerifyTotpDeps, request: MfaRequest, code: string, attempt: MfaAttempt): Promise<void> {
  const { pending } = request;
  // A secret confirmed meanwhile (in another tab) is the account's own.
  const pendingSecret = pending.enrolling ? await deps.totpEnrollments.pendingSecret(pending.accountId) : undefined;
  const enrolling = pendingSecret !== undefined;
  const secret = pendingSecret ?? (await deps.accounts.getTotpSecret(pending.accountId));
  if (!secret) {
    const account = await deps.accounts.findById(pending.accountId);
    if (account && hasSecondFactor(await accountFactors(deps, account))) {
      throw new AuthError(400, 'factor_not_enrolled', 'This account has no authenticator app set up. Use another method.', { detail: 'factor_not_enrolled.totp' });
    }
    throw new AuthError(400, 'password_required', 'No second factor is set up for this account; sign in again.');
  }

  const step = /^\d{6}$/.test(code) ? await deps.totp.verify(secret, code, deps.clock()) : null;
  if (step === null) return attempt.fail('invalid_code', 'That code is not valid. Check the code in your authenticator app and try again.');
  if (enrolling) await enrollTotp(deps, pending, secret);
  if (!(await deps.accounts.consumeTotpStep(pending.accountId, step))) {
    return attempt.fail('code_replayed', 'That code was already used. Wait for the next code and try again.');
  }
  await completeLogin(ctx, next, deps, request, pending.accountId, { method: 'totp' });
}
