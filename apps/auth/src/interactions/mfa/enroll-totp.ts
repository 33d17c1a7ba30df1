/**
 * Completing a TOTP enrollment: the first valid code of the account's pending secret. Rules:
 * - the secret becomes the account's (sealed with the at-rest key by the account store) and is
 *   not pending, audited `login.mfa.enrolled`;
 * - an account without recovery codes gets a set now, once the app is proven to work (not before),
 *   audited `recovery.issued` via `totp_enrollment`; the codes are kept sealed until the user
 *   confirms they saved them, so the next view shows them again (complete-login.ts).
 */
import { generateRecoveryCodes } from '../../recovery/recovery-codes.ts';
import type { HandlerServices } from '../deps.ts';
import type { PendingLogin } from '../interaction-state.ts';

export type EnrollTotpDeps = Pick<HandlerServices, 'accounts' | 'totpEnrollments' | 'recoveryCodes' | 'audit'>;

export async function enrollTotp(deps: EnrollTotpDeps, pending: PendingLogin, secret: string): Promise<void> {
  await deps.accounts.setTotpSecret(pending.accountId, secret);
  await deps.totpEnrollments.clearSecret(pending.accountId);
  deps.audit.record('login.mfa.enrolled', { account_id: pending.accountId });
  if ((await deps.recoveryCodes.remaining(pending.accountId)) === 0) {
    const codes = generateRecoveryCodes();
    await deps.recoveryCodes.store(pending.accountId, codes);
    await deps.totpEnrollments.keepUnsavedCodes(pending.accountId, codes);
    deps.audit.record('recovery.issued', { account_id: pending.accountId, via: 'totp_enrollment' });
  }
}
