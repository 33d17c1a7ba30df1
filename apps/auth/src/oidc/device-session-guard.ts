/**
 * The device sign-in's steps that need the browser's stored session: the code form's submission
 * (POST /activate, whose form token is kept in the session) and the resume after the sign-in
 * (/activate/<uid>, whose cookie comes with the session's). Rules:
 * - a browser without a stored session (no session cookie, or one whose session has ended or
 *   never existed) cannot be continuing either step: it is answered here, 400 `invalid_request`,
 *   with a page that says what happened and links to the code form;
 * - oidc-provider is not asked, because its error answer stores a new form token in a session it
 *   never saved, which it refuses with a server error;
 * - the code form itself (GET /activate) starts a session and is never refused here.
 */
import type { Context, Next } from 'koa';
import type { Provider } from 'oidc-provider';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { pageLanguage } from '../i18n/page-language.ts';
import { activateRestartPage } from '../views/activate-page.ts';

const RESUME_PREFIX = `${AUTH_ROUTES.activate}/`;

/** The page's words for each step (i18n catalogue `activate.restart.<step>`). */
const MESSAGES = { submit: 'activate.restart.submit', resume: 'activate.restart.resume' } as const;

/** Which of the two steps a request is, as oidc-provider's router matches it (any case, a trailing slash, HEAD as GET), if any. */
function stepOf(method: string, requested: string): keyof typeof MESSAGES | undefined {
  const path = requested.toLowerCase();
  const form = path === AUTH_ROUTES.activate || path === RESUME_PREFIX;
  if (method === 'POST' && (form || path.startsWith(RESUME_PREFIX))) return 'submit';
  if ((method === 'GET' || method === 'HEAD') && !form && path.startsWith(RESUME_PREFIX)) return 'resume';
  return undefined;
}

export function deviceSessionGuard(provider: Provider) {
  return async function requireStoredSession(ctx: Context, next: Next): Promise<void> {
    const step = stepOf(ctx.method, ctx.path);
    if (!step) return next();
    const session = await provider.Session.get(ctx as never);
    // A stored session has its expiry: the one oidc-provider can save again.
    if (typeof session.exp === 'number') return next();
    ctx.status = 400;
    ctx.type = 'html';
    const language = pageLanguage(ctx);
    ctx.body = activateRestartPage(language.t(MESSAGES[step]), 'invalid_request', language);
  };
}
