/**
 * Disabling and re-enabling an account (operator action). Rules:
 * - a disabled account keeps its data but cannot sign in (the password step answers 403
 *   `account_disabled` after a correct password only, so the state is not revealed to guessers);
 * - its SSO sessions and refresh tokens stop working (oidc-provider no longer finds the account);
 * - every access token issued to it before the moment it was disabled is revoked by subject, in
 *   the database (introspection, userinfo) and on the revocation feed (resource servers), and
 *   stays revoked after re-enabling: enabling only allows new sign-ins.
 */
import type { Account, AccountStore } from './account-store.ts';
import type { RevocationStore } from '../revocation/revocation-store.ts';

export interface AccountLifecycleDeps {
  accounts: Pick<AccountStore, 'setDisabled'>;
  revocations: Pick<RevocationStore, 'revokeSubject'>;
  clock: () => number;
  /** The longest access-token lifetime, seconds: how long the subject revocation must be kept. */
  accessTokenTtl: number;
}

/**
 * Ends every access token of `sub` issued up to now. `iat` has one-second precision, so a token
 * issued in the current second counts as issued before (the cut-off is now + 1 ms).
 */
export function revokeEverythingOf(deps: Omit<AccountLifecycleDeps, 'accounts'>, sub: string): Promise<void> {
  const now = deps.clock();
  return deps.revocations.revokeSubject(sub, now + 1, now + (deps.accessTokenTtl + 1) * 1000);
}

/** Disables the account; undefined when there is no such user. */
export async function disableAccount(deps: AccountLifecycleDeps, username: string): Promise<Account | undefined> {
  const account = await deps.accounts.setDisabled(username, deps.clock());
  if (account) await revokeEverythingOf(deps, account.id);
  return account;
}

/** Lets the account sign in again; its earlier tokens stay revoked. */
export function enableAccount(deps: AccountLifecycleDeps, username: string): Promise<Account | undefined> {
  return deps.accounts.setDisabled(username, null);
}
