/**
 * Regulation of the password step (the shared step is regulation/regulate-attempt.ts). Rules:
 * - the account is looked up by username before the check, to recognise a known device; every
 *   attempt does this alike, known username or not;
 * - the keys are the known device's, or the account's and the client IP's (regulation/regulation-keys.ts);
 * - a refused key set is answered 429 with Retry-After before the password is checked, even a
 *   correct one: `login.throttled` while a progressive delay runs, `login.lockout` while locked,
 *   step `password`; neither is counted as a failure.
 */
import type { Context } from 'koa';
import type { Account } from '../../accounts/account-store.ts';
import type { HandlerServices } from '../deps.ts';
import { regulateAttempt, type RegulateAttemptDeps, type RegulatedAttempt } from '../../regulation/regulate-attempt.ts';
import { passwordKeys } from '../../regulation/regulation-keys.ts';

/** A password attempt allowed to check its password. */
export interface PasswordAttempt {
  username: string;
  /** The account of the username, when there is one. */
  account: Account | undefined;
  regulated: RegulatedAttempt;
}

export type RegulatePasswordDeps = RegulateAttemptDeps & Pick<HandlerServices, 'accounts' | 'knownDevices'>;

export async function regulatePassword(ctx: Context, deps: RegulatePasswordDeps, username: string): Promise<PasswordAttempt> {
  const account = await deps.accounts.findByUsername(username);
  const device = account ? deps.knownDevices.recognise(ctx, account.id) : undefined;
  const regulated = await regulateAttempt(deps, {
    keys: passwordKeys({ username, ip: ctx.ip, device }),
    step: 'password',
    lockout: { username, ip: ctx.ip, step: 'password', known_device: device !== undefined },
  });
  return { username, account, regulated };
}
