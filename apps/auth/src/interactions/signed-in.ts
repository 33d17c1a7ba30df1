/**
 * The SSO session behind an account-page request, read with oidc-provider's Session.get (the
 * signed session cookie). Rules:
 * - no session, a session without an account, or an account that is gone or disabled is
 *   "not signed in": a page visit is sent through the login (clients/account-client.ts), anything
 *   else (a form post, a JSON call) is 401 login_required;
 * - the result names the session's id (the cookie value, kept on "sign out other sessions")
 *   and its stable uid (the key of its browser and last use, sessions/session-meta-store.ts),
 *   and when its sign-in happened (the session's login time, for fresh-sign-in.ts).
 */
import type { Context } from 'koa';
import type { Account } from '../accounts/account-store.ts';
import { AuthError } from '../errors/auth-error.ts';
import type { HandlerServices } from './deps.ts';

export interface SignedIn {
  account: Account;
  sessionId: string;
  sessionUid: string;
  /** When the sign-in of this session (its second factor) happened, epoch ms; undefined if unknown. */
  signedInAt: number | undefined;
}

export type SignedInDeps = Pick<HandlerServices, 'provider' | 'accounts'>;

export async function currentSession(ctx: Context, deps: SignedInDeps): Promise<SignedIn | undefined> {
  const session = await deps.provider().Session.get(ctx as never);
  if (!session.accountId) return undefined;
  const account = await deps.accounts.findById(session.accountId);
  if (!account || account.disabledAt !== null) return undefined;
  return { account, sessionId: session.jti, sessionUid: session.uid, signedInAt: typeof session.loginTs === 'number' ? session.loginTs * 1000 : undefined };
}

export const notSignedIn = (): AuthError =>
  new AuthError(401, 'login_required', 'You are not signed in to Gatehouse. Open your account page to sign in.');

export async function requireSession(ctx: Context, deps: SignedInDeps): Promise<SignedIn> {
  const signedIn = await currentSession(ctx, deps);
  if (!signedIn) throw notSignedIn();
  return signedIn;
}
