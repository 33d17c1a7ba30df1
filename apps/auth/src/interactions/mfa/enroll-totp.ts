/**
 * Completing a TOTP enrollment: the first valid code of a login that showed the QR. Rules:
 * - the secret is stored (sealed with the at-rest key by the account store), audited
 *   `login.mfa.enrolled`;
 * - the recovery codes shown beside the QR (only when the account had none) are stored now,
 *   audited `recovery.issued` via `totp_enrollment`.
 */
import { audit } from '../../logging/logger.ts';
import type { HandlerServices } from '../deps.ts';
import type { PendingLogin } from '../interaction-state.ts';

export type EnrollTotpDeps = Pick<HandlerServices, 'accounts' | 'box' | 'recoveryCodes' | 'logger'>;

export async function enrollTotp(deps: EnrollTotpDeps, pending: PendingLogin, secret: string): Promise<void> {
  await deps.accounts.setTotpSecret(pending.accountId, secret);
  audit(deps.logger, 'login.mfa.enrolled', { account_id: pending.accountId });
  if (pending.pendingRecoveryCodes) {
    await deps.recoveryCodes.store(pending.accountId, JSON.parse(deps.box.open(pending.pendingRecoveryCodes)) as string[]);
    audit(deps.logger, 'recovery.issued', { account_id: pending.accountId, via: 'totp_enrollment' });
  }
}
