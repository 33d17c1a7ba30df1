/**
 * What the account page shows of the preferred second factor: the account's methods that can be
 * offered first (TOTP when enrolled, push with a device, passkey with a passkey), the user's choice
 * and the one used last.
 */
import type { PreferableFactor } from '../accounts/factor-preference-store.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import type { PreferredFactorView } from '../views/preferred-factor-section.ts';

/** The methods an account can have offered first, in their fixed order. */
export async function preferableFactors(deps: Pick<HandlerServices, 'devices' | 'passkeys'>, account: { id: string; totpEnrolled: boolean }): Promise<PreferableFactor[]> {
  const [devices, passkeys] = await Promise.all([deps.devices.countByAccount(account.id), deps.passkeys.countByAccount(account.id)]);
  return [...(account.totpEnrolled ? (['totp'] as const) : []), ...(devices > 0 ? (['push'] as const) : []), ...(passkeys > 0 ? (['passkey'] as const) : [])];
}

/** What the account page's section shows (views/preferred-factor-section.ts). */
export async function preferredFactorView(
  deps: Pick<HandlerServices, 'factorPreferences' | 'devices' | 'passkeys'>,
  account: { id: string; totpEnrolled: boolean },
): Promise<PreferredFactorView> {
  const [available, preference] = await Promise.all([preferableFactors(deps, account), deps.factorPreferences.find(account.id)]);
  return { available, preferred: preference.preferred, lastUsed: preference.lastUsed };
}

