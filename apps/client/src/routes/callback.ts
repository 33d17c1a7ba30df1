/**
 * GET /callback?code&state — the end of a login (docs/spec.md §5 steps 5–7).
 * Rules:
 * - `state` must name a pending login of this app, still valid, started by this browser (login
 *   cookie); it is consumed on first use, so a replay fails; a replay by a browser that has a
 *   live session of this app (Back or reload after signing in) is sent to the landing page instead
 *   of the invalid_state page (nothing is exchanged, no session changes);
 * - an `error` from the authorization server shows an error page (access_denied 403, others 400);
 *   for a silent check (prompt=none) login_required and its kin mean the SSO session ended: the
 *   session is ended and an interactive login starts;
 * - the code is exchanged with the client secret and the PKCE verifier, and the ID token is
 *   validated (relying-party.ts); any failure shows an error page and creates no session;
 * - success replaces any previous session with a new one under a new key (no fixation), keeping
 *   nothing of it but the CSRF token of the same user after a silent check, then 302 to the page
 *   the login started from.
 */
import type { Context } from 'koa';
import { ClientError, invalidState } from '../errors/client-error.ts';
import { audit } from '../logging/logger.ts';
import { browserBinding } from '../oidc/login-flow.ts';
import { LoginRefused } from '../oidc/relying-party.ts';
import { newCsrfToken } from '../sessions/csrf.ts';
import { readSession, type UserSession } from '../sessions/session-data.ts';
import type { SessionObject } from '../sessions/session-middleware.ts';
import type { RouteDeps } from './deps.ts';

const SESSION_ENDED = new Set(['login_required', 'interaction_required', 'consent_required', 'account_selection_required']);

const param = (ctx: Context, name: string): string | undefined => {
  const value = ctx.query[name];
  return typeof value === 'string' && value ? value : undefined;
};

export function createCallback(deps: RouteDeps) {
  const { config } = deps;
  return async function callback(ctx: Context): Promise<void> {
    const state = param(ctx, 'state');
    if (!state) throw invalidState('The sign-in response carries no state.');
    const login = await deps.logins.take(state.slice(0, 256));
    if (!login) {
      // Back or reload after a finished sign-in replays its response: a signed-in user just goes on.
      const signedIn = readSession(ctx.session);
      if (signedIn && signedIn.expiresAt > deps.clock()) {
        ctx.redirect('/');
        return;
      }
      throw invalidState('This sign-in response is unknown, expired or was already used.');
    }
    if (browserBinding(ctx, config) !== login.browser) throw invalidState('This sign-in was started in another browser.');

    const error = param(ctx, 'error');
    if (error) {
      const previous = readSession(ctx.session);
      if (login.silent) {
        ctx.session = null;
        if (SESSION_ENDED.has(error)) {
          audit(deps.logger, 'sso.ended', { sub: previous?.user.sub });
          return deps.startLogin(ctx, { returnTo: login.returnTo });
        }
      }
      audit(deps.logger, 'login.failure', { reason: error.slice(0, 64) });
      const description = param(ctx, 'error_description');
      throw new ClientError(
        error === 'access_denied' ? 403 : 400,
        'login_failed',
        'Sign-in was not completed',
        `The sign-in service answered "${error.slice(0, 64)}"${description ? `: ${description.slice(0, 300)}` : '.'}`,
      );
    }

    const callbackUrl = new URL(config.redirectUri);
    callbackUrl.search = ctx.querystring;
    let result;
    try {
      result = await deps.relyingParty.completeLogin(callbackUrl, { state: login.state, nonce: login.nonce, codeVerifier: login.codeVerifier });
    } catch (thrown) {
      if (login.silent) ctx.session = null;
      if (thrown instanceof LoginRefused) {
        audit(deps.logger, 'login.failure', { reason: thrown.code });
        const message =
          thrown.code === 'invalid_id_token'
            ? 'The identity token from the sign-in service failed validation.'
            : 'The sign-in service refused to complete this sign-in. Start again from the application.';
        throw new ClientError(400, thrown.code, 'Sign-in could not be completed', message, { cause: thrown });
      }
      throw thrown;
    }

    const previous = readSession(ctx.session);
    const now = deps.clock();
    const sameUser = login.silent && previous?.user.sub === result.user.sub;
    const session: UserSession = {
      user: result.user,
      tokens: result.tokens,
      csrf: sameUser ? previous.csrf : newCsrfToken(),
      createdAt: sameUser ? previous.createdAt : now,
      expiresAt: sameUser ? previous.expiresAt : now + config.sessionTtl * 1000,
      ssoCheckedAt: now,
      ...(result.sid !== undefined ? { sid: result.sid } : {}),
    };
    ctx.session = null;
    ctx.session = session as unknown as SessionObject;
    await ctx.session!.regenerate();
    if (!login.silent) audit(deps.logger, 'login.success', { sub: result.user.sub });
    ctx.status = 302;
    ctx.redirect(login.returnTo);
  };
}
