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
import { pageLanguage } from '../i18n/page-language.ts';
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
      const language = pageLanguage(ctx);
      const { t } = language;
      ctx.type = 'html';
      ctx.body = layout({
        appName: config.clientId,
        title: t('logout.title'),
        language,
        body: html`<h1>${t('logout.heading')}</h1>
<p>${t('logout.text', { app: config.clientId })}</p>
<form method="post" action="/logout"><input type="hidden" name="_csrf" value="${session.csrf}"><button type="submit" id="logout">${t('logout.button')}</button></form>`,
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
      const language = pageLanguage(ctx);
      const { t } = language;
      ctx.type = 'html';
      ctx.body = messagePage({
        appName: config.clientId,
        title: t('signedOut.title'),
        message: t('signedOut.text', { app: config.clientId }),
        action: { href: '/', label: t('signedOut.again') },
        language,
      });
    },
  };
}
