/**
 * POST /mfa/recovery-codes/saved: "I have saved them". Rules:
 * - only on this browser's interaction (the form's `uid`), after its second factor passed while
 *   the account had recovery codes not confirmed saved (complete-login.ts keeps the factor on the
 *   pending login); otherwise the login starts over (400 password_required);
 * - the kept codes are dropped, so they are never shown again, audited `recovery.saved`, and the
 *   login completes with the factor that passed (the client's redirect, as after any second factor).
 */
import type { Context, Next } from 'koa';
import { AuthError } from '../../errors/auth-error.ts';
import type { HandlerServices } from '../deps.ts';
import { completeLogin, type CompleteLoginDeps } from './complete-login.ts';
import { readMfaRequest, type ReadMfaRequestDeps } from './read-mfa-request.ts';

export type RecoveryCodesSavedDeps = ReadMfaRequestDeps & CompleteLoginDeps & Pick<HandlerServices, 'totpEnrollments' | 'audit'>;

export function createRecoveryCodesSavedHandler(deps: RecoveryCodesSavedDeps) {
  return async function recoveryCodesSaved(ctx: Context, next: Next): Promise<void> {
    const request = await readMfaRequest(ctx, deps);
    const { pending } = request;
    if (!pending.passed) throw new AuthError(400, 'password_required', 'Enter your username and password first.');
    await deps.totpEnrollments.clearUnsavedCodes(pending.accountId);
    deps.audit.record('recovery.saved', { account_id: pending.accountId, ip: ctx.ip });
    await completeLogin(ctx, next, deps, request, pending.accountId, pending.passed, { codesSaved: true });
  };
}
