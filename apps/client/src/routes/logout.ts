/**
 * Sign-out (RP-initiated logout).
 * Rules:
 * - POST /logout with the session's CSRF token ends this app's session (store row and cookie),
 *   revokes its refresh token (best effort), then 302 to the authorization server's end-session
 *   endpoint with id_token_hint and post_logout_redirect_uri, which ends the SSO session and
 *   comes back to /signed-out;
 * - without a session it goes straight to /signed-out; GET /logout shows a confirmation form
 *   (no script may submit it: the CSP forbids scripts).
 */
import type { Context } from 'koa';
import { audit } from '../logging/logger.ts';
import { checkCsrf } from '../sessions/csrf.ts';
import { readSession } from '../sessions/session-data.ts';
import { html } from '@gatehouse/html';
import { layout } from '../views/layout.ts';
import { messagePage } from '../views/message-page.ts';
import type { RouteDeps } from './deps.ts';

export function createLogout(deps: RouteDeps) {
  const { config } = deps;
  return {
    async confirm(ctx: Context): Promise<void> {
      const session = readSession(ctx.session);
      if (!session) {
        ctx.redirect('/signed-out');
        return;
      }
      ctx.type = 'html';
      ctx.body = layout({
        appName: config.clientId,
        title: 'Sign out',
        body: html`<h1>Sign out?</h1>
<p>This signs you out of ${config.clientId} and of every application that uses your Gatehouse sign-in.</p>
<form method="post" action="/logout"><input type="hidden" name="_csrf" value="${session.csrf}"><button type="submit" id="logout">Sign out</button></form>`,
      });
    },

    async logout(ctx: Context): Promise<void> {
      const session = readSession(ctx.session);
      if (!session) {
        ctx.status = 303;
        ctx.redirect('/signed-out');
        return;
      }
      checkCsrf(session.csrf, (ctx.request.body as Record<string, unknown> | undefined)?._csrf);
      const endSession = await deps.relyingParty.endSessionUrl(session.tokens.idToken);
      ctx.session = null;
      if (session.tokens.refreshToken) {
        await deps.relyingParty.revoke(session.tokens.refreshToken).catch((error: unknown) => {
          deps.logger.warn({ event: 'logout.refresh_revocation_failed', err: error instanceof Error ? { message: error.message } : undefined }, 'refresh token revocation failed');
        });
      }
      audit(deps.logger, 'session.logout', { sub: session.user.sub });
      ctx.status = 302;
      ctx.redirect(endSession.href);
    },

    signedOut(ctx: Context): void {
      ctx.type = 'html';
      ctx.body = messagePage({
        appName: config.clientId,
        title: 'Signed out',
        message: `You are signed out of ${config.clientId}.`,
        action: { href: '/', label: 'Sign in again' },
      });
    },
  };
}
