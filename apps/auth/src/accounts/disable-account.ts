/**
 * Disabling and re-enabling an account (operator action). Rules:
 * - a disabled account keeps its data but cannot sign in (the password step answers 403
 *   `account_disabled` after a correct password only, so the state is not revealed to guessers);
 * - disabling ends, at once, every SSO session, grant and refresh token of the account and
 *   revokes every access token issued to it up to now by subject (end-account-access.ts): in
 *   the database (introspection, userinfo) and on the revocation feed (`account-disabled` and
 *   `session-revoked` events, for resource servers);
 * - the sessions are deleted, not merely unusable while disabled, so enabling never brings one
 *   back: enabling only allows new sign-ins, and the earlier tokens stay revoked.
 */
import type { Account, AccountStore } from './account-store.ts';
import type { EndedSessions } from '../sessions/user-sessions.ts';
import { endAccountAccess, type EndAccountAccessDeps } from './end-account-access.ts';

export interface AccountLifecycleDeps extends EndAccountAccessDeps {
  accounts: Pick<AccountStore, 'setDisabled'>;
}

/** Disables the account and ends everything it holds (what was ended in `ended`); undefined when there is no such user. */
export async function disableAccount(deps: AccountLifecycleDeps, username: string): Promise<(Account & { ended: EndedSessions }) | undefined> {
  // First the flag: the password step refuses from then on, so no new session starts after the sessions are ended.
  const account = await deps.accounts.setDisabled(username, deps.clock());
  if (!account) return undefined;
  return { ...account, ended: await endAccountAccess(deps, account.id, { revokeSubject: true }) };
}

/** Lets the account sign in again; it gets no session back, and its earlier tokens stay revoked. */
export function enableAccount(deps: Pick<AccountLifecycleDeps, 'accounts'>, username: string): Promise<Account | undefined> {
  return deps.accounts.setDisabled(username, null);
}
