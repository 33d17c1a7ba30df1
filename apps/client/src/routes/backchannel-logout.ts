/**
 * POST /backchannel-logout: the authorization server's logout token (OpenID Connect Back-Channel
 * Logout 1.0 §2.5, §2.8). Rules:
 * - the body is application/x-www-form-urlencoded with exactly one `logout_token`; no session
 *   cookie and no CSRF token are involved (the server calls, not a browser);
 * - the token is validated (oidc/logout-token.ts); a refusal is 400 JSON
 *   `{ error: "invalid_request", error_description }`, a server whose keys cannot be fetched 503;
 * - a valid token ends at once every session of this app that it names: by `sid` (and `sub` when
 *   both are given), else every session of `sub`; the next request of those browsers is signed
 *   out. Then 200 with an empty body; every answer is `Cache-Control: no-store`.
 * - audited `session.backchannel_logout` (sub, sessions ended) or `session.backchannel_logout.refused` (code).
 */
import type { Context } from 'koa';
import { audit } from '../logging/logger.ts';
import { LogoutTokenRefused, type LogoutTokenValidator } from '../oidc/logout-token.ts';
import type { SessionStore } from '../sessions/session-store.ts';
import type { Logger } from '../logging/logger.ts';

export interface BackchannelLogoutDeps {
  validate: LogoutTokenValidator;
  sessions: Pick<SessionStore, 'endBySid' | 'endBySub'>;
  logger: Logger;
}

export function createBackchannelLogoutRoute(deps: BackchannelLogoutDeps) {
  return async function backchannelLogout(ctx: Context): Promise<void> {
    ctx.set('Cache-Control', 'no-store');
    const refuse = (status: number, code: string, description: string) => {
      audit(deps.logger, 'session.backchannel_logout.refused', { code });
      ctx.status = status;
      ctx.body = { error: 'invalid_request', error_description: description };
    };
    const body = ctx.request.body as Record<string, unknown> | undefined;
    const token = body?.logout_token;
    if (!ctx.is('application/x-www-form-urlencoded') || typeof token !== 'string' || token === '') {
      return refuse(400, 'missing_token', 'a form body with one logout_token is required');
    }
    let target;
    try {
      target = await deps.validate(token);
    } catch (error) {
      if (!(error instanceof LogoutTokenRefused)) throw error;
      return refuse(error.code === 'server_unavailable' ? 503 : 400, error.code, error.message);
    }
    const ended = target.sid !== undefined ? await deps.sessions.endBySid(target.sid, target.sub) : await deps.sessions.endBySub(target.sub!);
    audit(deps.logger, 'session.backchannel_logout', { sub: target.sub, sessions: ended });
    ctx.status = 200;
    ctx.body = '';
  };
}
