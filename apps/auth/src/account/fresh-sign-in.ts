/**
 * A fresh sign-in before a security change on the account page (adding or removing an
 * authenticator app, a passkey or a push device, new recovery codes). Rules:
 * - a sign-in counts as fresh for AUTH_ACCOUNT_REAUTH_MAX_AGE seconds by the injected clock,
 *   from the session's login time (set when the second factor was passed); a session without a
 *   login time is never fresh;
 * - a stale page visit (GET) is sent through the login again (account-sign-in.ts: max_age and
 *   prompt=login on the account page's client) and comes back to the same page;
 * - a stale form post does nothing and answers 303 to that same sign-in, coming back to the page
 *   the action starts from; a stale JSON call is 401 `reauth_required`.
 */
import type { Context } from 'koa';
import { responseFormat } from '@gatehouse/http';
import { AuthError } from '../errors/auth-error.ts';
import { accountSignInUrl } from './account-sign-in.ts';
import type { SignedIn } from '../interactions/signed-in.ts';

export type FreshSignInDeps = {
  clock: () => number;
  config: { issuer: string; account: { reauthMaxAge: number } };
};

export function isFresh(deps: FreshSignInDeps, signedIn: Pick<SignedIn, 'signedInAt'>): boolean {
  return signedIn.signedInAt !== undefined && deps.clock() - signedIn.signedInAt <= deps.config.account.reauthMaxAge * 1000;
}

/**
 * True when the sign-in is fresh; otherwise sends the browser through the login (303 after a
 * post, 302 on a visit) back to `returnTo` and answers false. A JSON caller gets 401.
 */
export function requireFreshSignIn(ctx: Context, deps: FreshSignInDeps, signedIn: Pick<SignedIn, 'signedInAt'>, returnTo: string): boolean {
  if (isFresh(deps, signedIn)) return true;
  if (ctx.method !== 'GET' && (responseFormat(ctx) === 'json' || ctx.is('application/json'))) {
    throw new AuthError(401, 'reauth_required', `This change needs a sign-in from the last ${Math.round(deps.config.account.reauthMaxAge / 60)} minutes. Sign in again on your account page.`);
  }
  if (ctx.method !== 'GET') ctx.status = 303;
  ctx.redirect(accountSignInUrl(deps.config.issuer, { returnTo, maxAge: deps.config.account.reauthMaxAge }));
  return false;
}
