/**
 * Who may use the admin console (/admin), checked on every console request in this order:
 * 1. no SSO session, or its account is gone or disabled: a page visit (GET) is sent through the
 *    login and back to the page (console-sign-in.ts); a post is 401 with a page offering the sign-in;
 * 2. an account in neither the `admins` nor the `auditors` group (policy/admin-scopes.ts): 403,
 *    a page saying so with the way on (the account page, sign out);
 * 3. a sign-in older than AUTH_ADMIN_CONSOLE_MAX_AGE seconds by the injected clock (the session's
 *    login time, set when the second factor was passed, interactions/mfa/complete-login.ts), or
 *    one that did not pass a second factor (acr): a page visit is sent through the login again
 *    (prompt=login, max_age), a post is 401 with the same page as 1;
 * 4. `admins` may change things; a member of `auditors` only (not of `admins`) reads: the
 *    console does not render write controls for them, and their posts are 403 `read_only`.
 * Every change the console makes names the admin's account as the actor of its audit event
 * (`{ kind: 'account', accountId }`, admin/user-admin.ts actorFields).
 */
import type { Context } from 'koa';
import type { Account } from '../accounts/account-store.ts';
import type { Actor } from '../audit/actor.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { ADMIN_GROUP, READ_ONLY_ADMIN_GROUP } from '../policy/admin-scopes.ts';
import { csrfToken } from './console-csrf.ts';
import { MFA_ACR } from '../mfa/acr.ts';


export type ConsoleRole = 'admin' | 'auditor';

/** The admin behind a console request, once every check passed. */
export interface ConsoleAdmin {
  account: Account;
  role: ConsoleRole;
  /** Whether this admin may change things (role `admin`). */
  canWrite: boolean;
  /** The actor every change names in its audit event. */
  actor: Actor;
  /** The SSO session's uid (the CSRF token is bound to it). */
  sessionUid: string;
  /** The CSRF token of this session (console-csrf.ts). */
  csrf: string;
  /** When the second factor was passed (epoch ms). */
  signedInAt: number;
}

export type ConsoleAccess =
  | { outcome: 'granted'; admin: ConsoleAdmin }
  | { outcome: 'not_signed_in' }
  | { outcome: 'stale' }
  | { outcome: 'not_admin'; account: Account };

export type ConsoleAccessDeps = Pick<HandlerServices, 'provider' | 'accounts' | 'clock'> & {
  config: { cookieKeys: readonly string[]; adminConsole: { maxAge: number } };
};

/** The role the account's groups give in the console, or undefined. */
export function consoleRole(groups: readonly string[]): ConsoleRole | undefined {
  if (groups.includes(ADMIN_GROUP)) return 'admin';
  if (groups.includes(READ_ONLY_ADMIN_GROUP)) return 'auditor';
  return undefined;
}

export async function consoleAccess(ctx: Context, deps: ConsoleAccessDeps): Promise<ConsoleAccess> {
  const session = await deps.provider().Session.get(ctx as never);
  if (!session.accountId) return { outcome: 'not_signed_in' };
  const account = await deps.accounts.findById(session.accountId);
  if (!account || account.disabledAt !== null) return { outcome: 'not_signed_in' };
  const role = consoleRole(account.groups);
  if (!role) return { outcome: 'not_admin', account };
  const loginTs = session.loginTs;
  const signedInAt = typeof loginTs === 'number' ? loginTs * 1000 : undefined;
  if (signedInAt === undefined || session.acr !== MFA_ACR || deps.clock() - signedInAt > deps.config.adminConsole.maxAge * 1000) return { outcome: 'stale' };
  return {
    outcome: 'granted',
    admin: {
      account,
      role,
      canWrite: role === 'admin',
      actor: { kind: 'account', accountId: account.id },
      sessionUid: session.uid,
      csrf: csrfToken(deps.config.cookieKeys, session.uid),
      signedInAt,
    },
  };
}
