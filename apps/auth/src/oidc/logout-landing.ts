/**
 * Where RP-initiated logout's confirm step (POST /oauth2/v1/logout/confirm) lands the browser,
 * and what it remembers for that page (logout/signed-out-record.ts). Rules:
 * - "Sign out everywhere" on the confirmation page (`logout=everywhere`, posted with the same
 *   xsrf token as "Sign out") ends, once the sign-out is done, every other session and grant of
 *   the account (logout/sign-out-everywhere.ts endEverywhere); the record then says how many
 *   sessions ended instead of offering it, and the browser always goes to the success page;
 * - after a sign-out that ended a session of an account, the record names the apps back-channel
 *   logout told (the account page's own client left out), the app that asked and its
 *   post-logout redirect (state included, exactly as oidc-provider built it), and the account
 *   with a fresh nonce for "Sign out everywhere";
 * - the browser goes back to the app's post_logout_redirect_uri at once (RP-Initiated Logout 1.0
 *   §3) when there is nothing more to tell: no other app was signed out and the account has no
 *   other live session; otherwise it goes to the success page, which lists the apps, offers
 *   "Sign out everywhere" and a way back to the app;
 * - without a post-logout redirect the library's success page is the landing already;
 * - the confirm step's own answers (errors, the library's redirect) are otherwise untouched.
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import type { UserSessionStore } from '../sessions/user-sessions.ts';
import type { NotifiedClient } from '../sessions/backchannel-logout.ts';
import { ACCOUNT_CLIENT_ID } from '../clients/account-client.ts';
import { newNonce, writeSignedOutRecord, SIGNED_OUT_RECORD_MS, type SignedOutRecord } from '../logout/signed-out-record.ts';
import { endEverywhere, type EndEverywhereDeps } from '../logout/sign-out-everywhere.ts';

export type LogoutLandingDeps = EndEverywhereDeps & {
  issuer: string;
  /** The cookie keys, which sign the record. */
  cookieKeys: readonly string[];
  userSessions: Pick<UserSessionStore, 'list'>;
};

export const LOGOUT_SUCCESS_PATH = `${AUTH_ROUTES.logout}/success`;

export function logoutLanding(deps: LogoutLandingDeps) {
  const successUrl = new URL(LOGOUT_SUCCESS_PATH, deps.issuer);
  return async function landAfterLogout(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
    await next();
    if (ctx.oidc?.route !== 'end_session_confirm' || ctx.status !== 303) return;
    const accountId = ctx.oidc.session?.accountId;
    if (!accountId) return;
    const told = ((ctx.state as { signedOutClients?: NotifiedClient[] }).signedOutClients ?? []).filter((client) => client.clientId !== ACCOUNT_CLIENT_ID);
    const location = ctx.response.get('Location');
    const target = URL.canParse(location) ? new URL(location) : undefined;
    const toApp = target !== undefined && !(target.origin === successUrl.origin && target.pathname === successUrl.pathname);
    const asking = ctx.oidc.client;
    const ended = ctx.oidc.params?.logout === 'everywhere' ? await endEverywhere(deps, accountId, ctx.ip) : undefined;
    const now = deps.clock();
    const others = ended ? 0 : (await deps.userSessions.list(accountId)).length;
    const record: SignedOutRecord = {
      apps: told.map((client) => ({ name: client.clientName, confirmed: client.delivered })),
      ...(toApp && asking ? { back: { name: asking.clientName ?? asking.clientId, uri: location } } : {}),
      ...(others > 0 ? { everywhere: { accountId, nonce: newNonce() } } : {}),
      ...(ended ? { endedElsewhere: ended.sessions } : {}),
      exp: now + SIGNED_OUT_RECORD_MS,
    };
    const otherApps = told.filter((client) => client.clientId !== asking?.clientId).length;
    if (toApp && otherApps === 0 && others === 0 && !ended) return;
    writeSignedOutRecord(ctx, deps.cookieKeys, record, now);
    if (toApp) ctx.redirect(successUrl.href);
  };
}
