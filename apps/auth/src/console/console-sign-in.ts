/**
 * How the admin console signs a browser in, through the account page's built-in client
 * (clients/account-client.ts) with its second redirect URI, /admin/callback. Rules:
 * - the request carries `max_age` (AUTH_ADMIN_CONSOLE_MAX_AGE), so oidc-provider itself asks for
 *   a new login when the SSO session is older; a sign-in the console found too old also carries
 *   `prompt=login`, so the login is asked for whatever the provider's own reading of the age;
 * - `state` is the console page to come back to; the callback only follows a path under /admin
 *   (never another origin, never `//` or a backslash), anything else goes to /admin;
 * - a callback carrying `error` (the admin gave up, the account is disabled) is a page saying so
 *   with the way on, never a new sign-in in a loop.
 */
import type { Context } from 'koa';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { ACCOUNT_CLIENT_ID } from '../clients/account-client.ts';
import { CONSOLE_CALLBACK_PATH, CONSOLE_PATH } from './console-paths.ts';
import { consoleMessagePage } from '../views/console-pages.ts';
import { pageLanguage } from '../i18n/page-language.ts';

/** The console path `candidate` names, or /admin when it is not one. */
export function consoleReturnPath(candidate: unknown): string {
  if (typeof candidate !== 'string' || candidate.length > 2000) return CONSOLE_PATH;
  if (candidate !== CONSOLE_PATH && !candidate.startsWith(`${CONSOLE_PATH}/`) && !candidate.startsWith(`${CONSOLE_PATH}?`)) return CONSOLE_PATH;
  if (candidate.includes('//') || candidate.includes('\\') || /\p{Cc}/u.test(candidate) || candidate.startsWith(CONSOLE_CALLBACK_PATH)) return CONSOLE_PATH;
  return candidate;
}

/** The authorization request that signs the browser in (again, when `fresh`) and comes back to `returnTo`. */
export function consoleSignInUrl(issuer: string, options: { returnTo: string; maxAge: number; fresh: boolean }): string {
  const url = new URL(AUTH_ROUTES.authorize, issuer);
  const params: Record<string, string> = {
    client_id: ACCOUNT_CLIENT_ID,
    response_type: 'none',
    scope: 'openid',
    redirect_uri: `${issuer}${CONSOLE_CALLBACK_PATH}`,
    max_age: String(options.maxAge),
    state: consoleReturnPath(options.returnTo),
  };
  if (options.fresh) params.prompt = 'login';
  url.search = new URLSearchParams(params).toString();
  return url.toString();
}

/** GET /admin/callback: on to the page the sign-in started from, or a page saying it did not complete. */
export function consoleCallback(ctx: Context): void {
  if (typeof ctx.query.error === 'string') {
    const language = pageLanguage(ctx);
    const { t } = language;
    ctx.status = 400;
    ctx.type = 'html';
    ctx.body = consoleMessagePage({
      language,
      title: t('console.callback.title'),
      message: t('console.callback.message'),
      code: 'login_required',
      links: [
        { href: CONSOLE_PATH, label: t('console.callback.tryAgain') },
        { href: '/account', label: t('console.goToAccountPage') },
      ],
    });
    return;
  }
  ctx.status = 303;
  ctx.redirect(consoleReturnPath(ctx.query.state));
}
