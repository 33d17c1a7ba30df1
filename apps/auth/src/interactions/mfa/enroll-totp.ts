/**
 * Completing a TOTP enrollment: the first valid code of a login that showed the QR. Rules:
 * - the secret is stored (sealed with the at-rest key by the account store), audited
 *   `login.mfa.enrolled`;
 * - the recovery codes shown beside the QR (only when the account had none) are stored now,
 *   audited `recovery.issued` via `totp_enrollment`.
 */
import type { HandlerServices } from '../deps.ts';
import type { PendingLogin } from '../interaction-state.ts';

export type EnrollTotpDeps = Pick<HandlerServices, 'accounts' | 'box' | 'recoveryCodes' | 'audit'>;

export async function enrollTotp(deps: EnrollTotpDeps, pending: PendingLogin, secret: string): Promise<void> {
  await deps.accounts.setTotpSecret(pending.accountId, secret);
  deps.audit.record('login.mfa.enrolled', { account_id: pending.accountId });
  if (pending.pendingRecoveryCodes) {
    await deps.recoveryCodes.store(pending.accountId, JSON.parse(deps.box.open(pending.pendingRecoveryCodes)) as string[]);
    deps.audit.record('recovery.issued', { account_id: pending.accountId, via: 'totp_enrollment' });
  }
}
