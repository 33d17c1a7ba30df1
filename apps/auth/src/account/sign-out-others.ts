/**
 * POST /account/sessions/sign-out-others: ends every other SSO session of the signed-in user
 * and every grant this session does not hold (accounts/end-account-access.ts): the other
 * browsers must sign in again and those grants' refresh tokens answer invalid_grant. Same-origin
 * posts only (403), a signed-in session (401). Audited `account.sessions.signed_out`; a form
 * gets 303 to the Sessions page with the message at its top, a JSON caller 200 with the counts.
 */
import { pageLanguage } from '../i18n/page-language.ts';
import { redirectWithFlash } from './account-flash.ts';
import { SECTION_PATHS } from '../views/account-paths.ts';
import type { Context } from 'koa';
import { endAccountAccess } from '../accounts/end-account-access.ts';
import { requireSameOrigin, type OriginDeps } from '../http/same-origin.ts';
import { readBody } from '../http/read-body.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { requireSession, type SignedInDeps } from '../interactions/signed-in.ts';

export type SignOutOthersDeps = SignedInDeps & OriginDeps & Pick<HandlerServices, 'userSessions' | 'sessionMeta' | 'backchannelLogout' | 'revocations' | 'audit' | 'clock'> & {
  config: Pick<HandlerServices['config'], 'issuer' | 'accessTokenTtl' | 'cookieKeys'>;
};

export function createSignOutOthersHandler(deps: SignOutOthersDeps) {
  return async function signOutOthers(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const { account, sessionId } = await requireSession(ctx, deps);
    const body = await readBody(ctx);
    const ended = await endAccountAccess({ ...deps, accessTokenTtl: deps.config.accessTokenTtl }, account.id, { keepSessionId: sessionId });
    deps.audit.record('account.sessions.signed_out', { account_id: account.id, ip: ctx.ip, sessions: ended.sessions, grants: ended.grants });
    if (body.json) {
      ctx.status = 200;
      ctx.body = { sessions_ended: ended.sessions, grants_ended: ended.grants };
      return;
    }
    redirectWithFlash(ctx, deps, SECTION_PATHS.sessions, { kind: 'notice', text: pageLanguage(ctx).t('account.flash.othersSignedOut') });
  };
}
