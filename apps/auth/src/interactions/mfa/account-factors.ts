/**
 * The second factors an account has, as the sign-in counts them. Rules:
 * - they are the ones `authctl user reset-mfa` removes (admin/user-admin.ts): a confirmed TOTP
 *   secret, authenticator devices (push), passkeys and unused recovery codes;
 * - only an account with none of them enrols TOTP right after its password
 *   (login/prepare-second-factor.ts); an account with any of them passes one of them first, so a
 *   password alone never adds a second factor.
 */
import type { HandlerServices } from '../deps.ts';

export interface AccountFactors {
  totp: boolean;
  devices: number;
  passkeys: number;
  recoveryCodes: number;
}

export type AccountFactorsDeps = Pick<HandlerServices, 'devices' | 'passkeys' | 'recoveryCodes'>;

export async function accountFactors(deps: AccountFactorsDeps, account: { id: string; totpEnrolled: boolean }): Promise<AccountFactors> {
  const [devices, passkeys, recoveryCodes] = await Promise.all([
    deps.devices.countByAccount(account.id),
    deps.passkeys.countByAccount(account.id),
    deps.recoveryCodes.remaining(account.id),
  ]);
  return { totp: account.totpEnrolled, devices, passkeys, recoveryCodes };
}

export const hasSecondFactor = (factors: AccountFactors): boolean => factors.totp || factors.devices > 0 || factors.passkeys > 0 || factors.recoveryCodes > 0;
