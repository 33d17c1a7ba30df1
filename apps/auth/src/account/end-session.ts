/**
 * POST /account/sessions/end: the signed-in user ends one other session of theirs (the
 * Sessions page, after its confirmation page). Rules:
 * - same-origin posts only (403) from a signed-in session (401), naming `session`, the uid of
 *   one of the account's sessions (else the Sessions page with a `not_found` error at its top;
 *   a JSON caller 404);
 * - the session of this request is not ended here (400: signing out does that);
 * - the session ends with the grants only it holds, its metadata goes, and its clients hear a
 *   back-channel logout (accounts/end-account-access.ts endOneSession); the other sessions stay;
 * - audited `account.session.signed_out`; a form gets 303 to the Sessions page with the message
 *   at its top, a JSON caller 200 with the counts.
 */
import { pageLanguage } from '../i18n/page-language.ts';
import type { Context } from 'koa';
import { endOneSession } from '../accounts/end-account-access.ts';
import { AuthError } from '../errors/auth-error.ts';
import { requireSameOrigin, type OriginDeps } from '../http/same-origin.ts';
import { readBody } from '../http/read-body.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { SECTION_PATHS } from '../views/account-paths.ts';
import { redirectWithFlash, type FlashDeps } from './account-flash.ts';
import { requireSession, type SignedInDeps } from '../interactions/signed-in.ts';

export const END_SESSION_PATH = `${SECTION_PATHS.sessions}/end`;

export type EndSessionDeps = SignedInDeps & OriginDeps & FlashDeps & Pick<HandlerServices, 'userSessions' | 'sessionMeta' | 'backchannelLogout' | 'audit'>;

export function createEndSessionHandler(deps: EndSessionDeps) {
  return async function endSession(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const { account, sessionUid } = await requireSession(ctx, deps);
    const body = await readBody(ctx);
    const uid = (body.fields.session ?? '').slice(0, 200);
    const refuse = (error: AuthError, said: 'account.flash.sessionCurrent' | 'account.flash.sessionGone') => {
      if (body.json) throw error;
      redirectWithFlash(ctx, deps, SECTION_PATHS.sessions, { kind: 'error', text: pageLanguage(ctx).t(said), code: error.code });
    };
    if (uid === sessionUid) return refuse(new AuthError(400, 'invalid_request', 'This is the session you are using. To end it, use Sign out.'), 'account.flash.sessionCurrent');
    const ended = uid ? await endOneSession(deps, account.id, uid) : undefined;
    if (!ended) return refuse(new AuthError(404, 'not_found', 'This session has already ended or is not one of yours. Nothing was signed out.'), 'account.flash.sessionGone');
    deps.audit.record('account.session.signed_out', { account_id: account.id, ip: ctx.ip, grants: ended.grants });
    if (body.json) {
      ctx.status = 200;
      ctx.body = { sessions_ended: ended.sessions, grants_ended: ended.grants };
      return;
    }
    redirectWithFlash(ctx, deps, SECTION_PATHS.sessions, { kind: 'notice', text: pageLanguage(ctx).t('account.flash.sessionEnded') });
  };
}
