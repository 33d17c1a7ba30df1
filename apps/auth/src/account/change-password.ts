/**
 * POST /account/password: the signed-in user changes their password. Rules:
 * - same-origin posts only (403), a signed-in session (401 login_required);
 * - the current password is required and regulated like the login (reauthenticate.ts): wrong
 *   → 401 invalid_current_password, audited `account.password_change.refused`;
 * - the new password, typed twice, follows the policy (new-password.ts: one code per rule);
 * - on success the password is replaced (argon2id), every OTHER session of the user and every
 *   grant this session does not hold are ended at once (accounts/end-account-access.ts: the
 *   other browsers must sign in again, their refresh tokens answer invalid_grant, resource
 *   servers hear `session-revoked`); this browser stays signed in, since it just proved the
 *   current password; audited `account.password_changed`; a form gets 303 to
 *   the Security page with the message at its top, a JSON caller 200 with what was ended;
 * - a refusal is shown at the top of the Security page; a JSON caller gets it from the error
 *   middleware (http/form-page.ts).
 */
import { pageLanguage } from '../i18n/page-language.ts';
import { redirectWithFlash } from './account-flash.ts';
import { SECTION_PATHS } from '../views/account-paths.ts';
import type { Context } from 'koa';
import { hashPassword } from '../accounts/password.ts';
import { endAccountAccess } from '../accounts/end-account-access.ts';
import { requireSameOrigin, type OriginDeps } from '../http/same-origin.ts';
import { formPage } from '../http/form-page.ts';
import { readBody } from '../http/read-body.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { renderAccount, type AccountViewDeps } from './account-view.ts';
import { newPassword } from './new-password.ts';
import { requireCurrentPassword, type ReauthenticateDeps } from './reauthenticate.ts';
import { requireSession } from '../interactions/signed-in.ts';

export type ChangePasswordDeps = AccountViewDeps & OriginDeps & ReauthenticateDeps & Pick<HandlerServices, 'userSessions' | 'sessionMeta' | 'backchannelLogout' | 'revocations' | 'audit'>;

export function createChangePasswordHandler(deps: ChangePasswordDeps) {
  return async function changePassword(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const signedIn = await requireSession(ctx, deps);
    const { account } = signedIn;
    await formPage(ctx, {
      read: () => readBody(ctx),
      async run(body) {
        await requireCurrentPassword(ctx, deps, account, (body.fields.current_password ?? '').slice(0, 1024));
        const password = newPassword(body);
        await deps.accounts.setPassword(account.id, await hashPassword(password));
        const ended = await endAccountAccess({ ...deps, accessTokenTtl: deps.config.accessTokenTtl }, account.id, { keepSessionId: signedIn.sessionId });
        deps.audit.record('account.password_changed', { account_id: account.id, ip: ctx.ip, sessions: ended.sessions, grants: ended.grants });
        if (body.json) {
          ctx.status = 200;
          ctx.body = { password_changed: true, sessions_ended: ended.sessions, grants_ended: ended.grants };
          return;
        }
        redirectWithFlash(ctx, deps, SECTION_PATHS.security, { kind: 'notice', text: pageLanguage(ctx).t('account.flash.passwordChanged') });
      },
      refused(error) {
        if (error.code === 'invalid_current_password') {
          deps.audit.record('account.password_change.refused', { account_id: account.id, ip: ctx.ip, reason: 'invalid_current_password' });
        }
      },
      async page(error, body) {
        if (body.json) return false;
        await renderAccount(ctx, deps, signedIn, 'security', { error });
        return true;
      },
    });
  };
}
