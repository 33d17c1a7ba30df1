/**
 * The second factor prepared after a passed password. Rules:
 * - the interaction keeps a pending login naming the account and when its password (or the
 *   upstream provider that stood for it, `federatedBy`) passed (the injected clock);
 * - only an account without any second factor (mfa/account-factors.ts: no TOTP, no device, no
 *   passkey, no recovery code) is enrolling; an account with a device, a passkey or recovery codes
 *   but no TOTP is asked for one of those, so the password alone never adds a factor;
 * - an enrolling account's pending secret is the one kept for the account
 *   (accounts/totp-enrollment-store.ts), made now only when none is pending, so every view of
 *   the enrollment page (a reload, Back, another tab, a new sign-in after an expired page) shows
 *   the same key and QR code until it is confirmed or the user starts over;
 * - recovery codes are not drawn here: they are issued once the first code is verified
 *   (mfa/enroll-totp.ts).
 */
import type { Account } from '../../accounts/account-store.ts';
import type { HandlerServices } from '../deps.ts';
import { accountFactors, hasSecondFactor, type AccountFactorsDeps } from '../mfa/account-factors.ts';
import { savePendingLogin, type Interaction, type PendingLogin } from '../interaction-state.ts';

export type PrepareSecondFactorDeps = AccountFactorsDeps & Pick<HandlerServices, 'totp' | 'totpEnrollments' | 'clock'>;

export async function prepareSecondFactor(deps: PrepareSecondFactorDeps, interaction: Interaction, account: Account, via: { federatedBy?: string } = {}): Promise<PendingLogin> {
  const pending: PendingLogin = { accountId: account.id, username: account.username, passwordAt: deps.clock(), ...(via.federatedBy ? { federatedBy: via.federatedBy } : {}) };
  if (!hasSecondFactor(await accountFactors(deps, account))) {
    await deps.totpEnrollments.secretOrStart(account.id, () => deps.totp.generateSecret());
    pending.enrolling = true;
  }
  await savePendingLogin(interaction, pending);
  return pending;
}
