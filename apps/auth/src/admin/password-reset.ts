/**
 * One-time password-reset links, issued by an operator (authctl today, the admin API later) and
 * printed for them to hand over: Gatehouse sends no mail. Rules:
 * - the link is `<issuer>/account/password-reset/<token>` (accounts/password-reset-store.ts:
 *   32 random bytes, stored hashed, single use), valid PASSWORD_RESET_TTL_MS (1 hour);
 * - issuing a link for a user replaces their earlier link;
 * - an unknown username is an AccountError `unknown_user`; a disabled account gets no link
 *   (AccountError `invalid_input`: enable it first), since the link could not be used;
 * - every issue is audited `admin.user.reset_link_issued` with the actor; the token never is;
 * - what the link's page does (new password by the policy, every session ended, lockouts
 *   cleared): account/password-reset-page.ts.
 */
import { AccountError, type Account, type AccountStore } from '../accounts/account-store.ts';
import type { PasswordResetStore } from '../accounts/password-reset-store.ts';
import type { Auditor } from '../audit/auditor.ts';
import { actorFields, type Actor } from '../audit/actor.ts';

export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;
export const PASSWORD_RESET_PATH = '/account/password-reset';

export interface PasswordResetDeps {
  accounts: Pick<AccountStore, 'findByUsername'>;
  passwordResets: Pick<PasswordResetStore, 'issue'>;
  audit: Auditor;
  /** The server's issuer URL (config.issuer): the link's origin. */
  issuer: string;
}

export interface IssuedPasswordReset {
  account: Account;
  /** The one-time link; shown to the operator once, never logged. */
  url: string;
  expiresAt: number;
}

/** Issues a one-time password-reset link for `username` on behalf of `actor`. */
export async function issuePasswordReset(deps: PasswordResetDeps, actor: Actor, username: string): Promise<IssuedPasswordReset> {
  const account = await deps.accounts.findByUsername(username);
  if (!account) throw new AccountError('unknown_user', `unknown user "${username}"`);
  if (account.disabledAt !== null) throw new AccountError('invalid_input', `user "${account.username}" is disabled; enable it before issuing a reset link`);
  const { token, expiresAt } = await deps.passwordResets.issue(account.id, PASSWORD_RESET_TTL_MS);
  deps.audit.record('admin.user.reset_link_issued', { ...actorFields(actor), account_id: account.id, expires_at: new Date(expiresAt).toISOString() });
  return { account, url: `${deps.issuer}${PASSWORD_RESET_PATH}/${token}`, expiresAt };
}
