/**
 * The second factor prepared after a passed password. Rules:
 * - the interaction keeps a pending login naming the account and when its password (or the
 *   upstream provider that stood for it, `federatedBy`) passed (the injected clock);
 * - an account without TOTP gets an enrollment: a new secret, sealed, or the one this interaction
 *   already showed the same account, so showing the page again shows the same QR code;
 * - an enrollment hands out recovery codes (sealed, shown once) unless the account has some or
 *   this interaction already drew them for it.
 */
import type { Account } from '../../accounts/account-store.ts';
import { generateRecoveryCodes } from '../../recovery/recovery-codes.ts';
import type { HandlerServices } from '../deps.ts';
import { pendingLogin, savePendingLogin, type Interaction, type PendingLogin } from '../interaction-state.ts';

export type PrepareSecondFactorDeps = Pick<HandlerServices, 'box' | 'totp' | 'recoveryCodes' | 'clock'>;

export async function prepareSecondFactor(deps: PrepareSecondFactorDeps, interaction: Interaction, account: Account, via: { federatedBy?: string } = {}): Promise<PendingLogin> {
  const previous = pendingLogin(interaction);
  const pending: PendingLogin = { accountId: account.id, username: account.username, passwordAt: deps.clock(), ...(via.federatedBy ? { federatedBy: via.federatedBy } : {}) };
  if (!account.totpEnrolled) {
    const resumed = previous?.accountId === account.id && previous.pendingTotpSecret ? previous : undefined;
    pending.pendingTotpSecret = resumed?.pendingTotpSecret ?? deps.box.seal(deps.totp.generateSecret());
    if (resumed?.pendingRecoveryCodes) pending.pendingRecoveryCodes = resumed.pendingRecoveryCodes;
    else if ((await deps.recoveryCodes.remaining(account.id)) === 0) {
      pending.pendingRecoveryCodes = deps.box.seal(JSON.stringify(generateRecoveryCodes()));
    }
  }
  await savePendingLogin(interaction, pending);
  return pending;
}
