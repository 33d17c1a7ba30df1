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
 *   /account?done=password#password, a JSON caller 200 with what was ended.
 */
import type { Context } from 'koa';
import { hashPassword } from '../accounts/password.ts';
import { endAccountAccess } from '../accounts/end-account-access.ts';
import { requireSameOrigin, type OriginDeps } from '../authenticator/manage.ts';
import { AuthError } from '../errors/auth-error.ts';
import { readBody, type ParsedBody } from '../http/read-body.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { renderAccount, type AccountViewDeps } from './account-view.ts';
import { newPassword } from './new-password.ts';
import { requireCurrentPassword, type ReauthenticateDeps } from './reauthenticate.ts';
import { requireSession } from './signed-in.ts';

export type ChangePasswordDeps = AccountViewDeps & OriginDeps & ReauthenticateDeps & Pick<HandlerServices, 'userSessions' | 'sessionMeta' | 'revocations' | 'audit'>;

export function createChangePasswordHandler(deps: ChangePasswordDeps) {
  return async function changePassword(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const signedIn = await requireSession(ctx, deps);
    const { account } = signedIn;
    let body: ParsedBody | undefined;
    try {
      body = await readBody(ctx);
      const current = body.fields.current_password ?? '';
      try {
        await requireCurrentPassword(ctx, deps, account, current.slice(0, 1024));
      } catch (error) {
        if (error instanceof AuthError && error.code === 'invalid_current_password') {
          deps.audit.record('account.password_change.refused', { account_id: account.id, ip: ctx.ip, reason: 'invalid_current_password' });
        }
        throw error;
      }
      const password = newPassword(body);
      await deps.accounts.setPassword(account.id, await hashPassword(password));
      const ended = await endAccountAccess({ ...deps, accessTokenTtl: deps.config.accessTokenTtl }, account.id, { keepSessionId: signedIn.sessionId });
      deps.audit.record('account.password_changed', { account_id: account.id, ip: ctx.ip, sessions: ended.sessions, grants: ended.grants });
      if (body.json) {
        ctx.status = 200;
        ctx.body = { password_changed: true, sessions_ended: ended.sessions, grants_ended: ended.grants };
        return;
      }
      ctx.status = 303;
      ctx.redirect('/account?done=password#password');
    } catch (error) {
      if (!(error instanceof AuthError) || !body || body.json) throw error;
      await renderAccount(ctx, deps, signedIn, { error: { section: 'password', error } });
    }
  };
}
