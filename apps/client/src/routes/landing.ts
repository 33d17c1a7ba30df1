/**
 * GET / — the landing page.
 * Rules:
 * - no signed-in session: 302 to the authorization endpoint (docs/spec.md §5 step 1), no session created;
 * - a session whose SSO session was last confirmed more than CLIENT_SSO_CHECK_INTERVAL ago is
 *   re-checked with a silent authorization request (prompt=none) first, so a sign-out elsewhere
 *   ends this session at its next page view;
 * - the page lists the collection through the API with the session's access token, refreshed
 *   transparently; a refused refresh ends the session and starts a new login;
 * - the page links "Manage your account": the authorization server's account page, naming this
 *   client and its home page as the way back (the server only keeps a registered address).
 */
import type { Context } from 'koa';
import { RefreshRefused } from '../oidc/relying-party.ts';
import { readSession } from '../sessions/session-data.ts';
import { landingPage } from '../views/landing-page.ts';
import { pageLanguage } from '../i18n/page-language.ts';
import type { RouteDeps } from './deps.ts';
import { loginAgain } from './session-guard.ts';

export function createLanding(deps: RouteDeps) {
  const { config } = deps;
  return async function landing(ctx: Context): Promise<void> {
    const session = readSession(ctx.session);
    if (!session) return deps.startLogin(ctx, { returnTo: '/' });
    if (config.ssoCheckInterval > 0 && deps.clock() - session.ssoCheckedAt >= config.ssoCheckInterval * 1000) {
      return deps.startLogin(ctx, { returnTo: '/', silent: true });
    }
    let items;
    try {
      items = await deps.api.list(ctx);
    } catch (error) {
      if (error instanceof RefreshRefused) return loginAgain(ctx, deps);
      throw error;
    }
    const flash = session.flash;
    if (flash) delete ctx.session!.flash;
    const current = readSession(ctx.session)!;
    ctx.type = 'html';
    ctx.body = landingPage({
      appName: config.clientId,
      accountUrl: accountUrl(config),
      user: current.user,
      sessionExpiresAt: current.expiresAt,
      accessTokenExpiresAt: current.tokens.expiresAt,
      scope: current.tokens.scope,
      csrf: current.csrf,
      collection: config.collection,
      itemField: config.itemField,
      items,
      flash,
      language: pageLanguage(ctx),
      now: deps.clock(),
    });
  };
}

/** The account page at the authorization server, with this app as the way back (its home page). */
function accountUrl(config: { issuer: string; clientId: string; publicUrl: string }): string {
  const url = new URL('/account', config.issuer);
  url.search = new URLSearchParams({ client_id: config.clientId, return_to: `${config.publicUrl.replace(/\/+$/, '')}/` }).toString();
  return url.toString();
}
