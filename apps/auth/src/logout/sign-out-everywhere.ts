/**
 * "Sign out everywhere" around a sign-out ends every other session and grant of the account that
 * signed out (accounts/end-account-access.ts: other browsers and devices must sign in again,
 * refresh tokens answer invalid_grant, the sessions' apps are told by back-channel logout),
 * audited `session.logout.everywhere` (endEverywhere). It is offered twice: on the confirmation
 * page, as the second choice beside "Sign out" (oidc/logout-landing.ts ends the rest once the
 * sign-out is done), and on the success page after it, by this route.
 * POST /oauth2/v1/logout/everywhere checks, in this order:
 * - same-origin posts only (403 `forbidden`), a form or JSON body (415, 413, 400 as read-body.ts);
 * - the sign-out's record (signed-out-record.ts) must be present, unexpired and still offer it,
 *   and the form's `nonce` must equal the record's: otherwise 400 `sign_out_expired`, a page
 *   leading to the account page (nothing is ended);
 * - then the account's sessions end, audited `session.logout.everywhere`, the record keeps the
 *   list and the way back without the offer (a second post is refused), and 303 to the
 *   success page, which says how many sessions ended.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { endAccountAccess, type EndAccountAccessDeps } from '../accounts/end-account-access.ts';
import type { EndedSessions } from '../sessions/user-sessions.ts';
import type { Auditor } from '../audit/auditor.ts';
import { AuthError } from '../errors/auth-error.ts';
import { readBody } from '../http/read-body.ts';
import { requireSameOrigin } from '../http/same-origin.ts';
import { ACCOUNT_PATH } from '../clients/account-client.ts';
import { safeEqual } from '../crypto/safe-equal.ts';
import { readSignedOutRecord, writeSignedOutRecord } from './signed-out-record.ts';

export const SIGN_OUT_EVERYWHERE_PATH = `${AUTH_ROUTES.logout}/everywhere`;

export type EndEverywhereDeps = EndAccountAccessDeps & { audit: Pick<Auditor, 'record'> };

/** Ends every session and grant of the account, audited; says what ended. */
export async function endEverywhere(deps: EndEverywhereDeps, accountId: string, ip: string): Promise<EndedSessions> {
  const ended = await endAccountAccess(deps, accountId);
  deps.audit.record('session.logout.everywhere', { account_id: accountId, ip, sessions: ended.sessions, grants: ended.grants });
  return ended;
}

export type SignOutEverywhereDeps = Omit<EndAccountAccessDeps, 'accessTokenTtl'> & {
  config: { issuer: string; accessTokenTtl: number; cookieKeys: readonly string[] };
  audit: Pick<Auditor, 'record'>;
};

const expired = () =>
  new AuthError(400, 'sign_out_expired', 'This page no longer signs you out anywhere else: it has expired or was already used. To end your other sessions, sign in and choose "Sign out other sessions" on your account page.', {
    way: { label: 'Go to your account', href: ACCOUNT_PATH, says: { way: 'account' } },
  });

/**
 * The route, served in front of oidc-provider (app.ts) by its path alone: the rest of
 * /oauth2/v1/logout is the provider's (http/route-group.ts, `exact`).
 */
export function signOutEverywhereRoutes(deps: SignOutEverywhereDeps): Router {
  const router = new Router();
  router.post(SIGN_OUT_EVERYWHERE_PATH, async function signOutEverywhere(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const body = await readBody(ctx);
    const now = deps.clock();
    const record = readSignedOutRecord(ctx, deps.config.cookieKeys, now);
    if (!record?.everywhere || !safeEqual(body.fields.nonce ?? '', record.everywhere.nonce)) throw expired();
    const { accountId } = record.everywhere;
    const ended = await endEverywhere({ ...deps, accessTokenTtl: deps.config.accessTokenTtl }, accountId, ctx.ip);
    const { everywhere: _used, ...kept } = record;
    writeSignedOutRecord(ctx, deps.config.cookieKeys, { ...kept, endedElsewhere: ended.sessions }, now);
    ctx.status = 303;
    ctx.redirect(`${AUTH_ROUTES.logout}/success`);
  });
  return router;
}
