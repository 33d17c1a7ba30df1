/**
 * The password check. Rules:
 * - an unknown username, and an account without a password, cost one argon2 verification, like a wrong password, and all are
 *   answered 401 invalid_credentials with the same message (no user enumeration);
 * - each failure counts against the attempt's keys and is audited `login.password.failure`; the
 *   failure that starts a lock is audited `login.lockout` and counted once (regulation/regulate-attempt.ts);
 * - the right password of a disabled account is 403 account_disabled, audited
 *   `login.account_disabled`, and not counted as a failure;
 * - success is audited `login.password.success` and counted.
 */
import type { Context } from 'koa';
import type { Account } from '../../accounts/account-store.ts';
import { burnPasswordCheck, hasPassword, verifyPassword } from '../../accounts/password.ts';
import { AuthError } from '../../errors/auth-error.ts';
import type { HandlerServices } from '../deps.ts';
import type { PasswordAttempt } from './regulate-password.ts';

export type CheckPasswordDeps = Pick<HandlerServices, 'audit' | 'metrics'>;

export async function checkPassword(ctx: Context, deps: CheckPasswordDeps, attempt: PasswordAttempt, password: string): Promise<Account> {
  const { account, username } = attempt;
  // An account without a password (a federated one) costs what an unknown username does.
  const ok = account && hasPassword(account.passwordHash) ? await verifyPassword(account.passwordHash, password) : (await burnPasswordCheck(password), false);
  if (!account || !ok) {
    return attempt.regulated.fail(new AuthError(401, 'invalid_credentials', 'Invalid username or password.'), () =>
      deps.audit.record('login.password.failure', { username, ip: ctx.ip }),
    );
  }
  if (account.disabledAt !== null) {
    deps.audit.record('login.account_disabled', { account_id: account.id, ip: ctx.ip });
    throw new AuthError(403, 'account_disabled', 'This account is disabled. Contact your administrator.');
  }
  deps.audit.record('login.password.success', { account_id: account.id, ip: ctx.ip });
  deps.metrics.login('password', 'success');
  return account;
}
