/**
 * POST /language: the language switch in every page's footer. Rules:
 * - same-origin posts only (403), a form or JSON body (read-body.ts);
 * - `lang` must be one of LOCALES (else 400 invalid_request); it is kept in LANGUAGE_COOKIE for a
 *   year (not signed: it holds nothing but a language, and any other value is ignored when read);
 * - the answer is 303 to `return` when it is a path of this server, else to the account page, so
 *   the switch never leads to another site.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { invalidRequest } from '../errors/auth-error.ts';
import { readBody } from './read-body.ts';
import { requireSameOrigin, type OriginDeps } from './same-origin.ts';
import { isLocalPath } from '../i18n/page-language.ts';
import { LANGUAGE_COOKIE, LANGUAGE_PATH, LOCALES, type Locale } from '../i18n/locales.ts';

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;
const FALLBACK_RETURN = '/account';

const isLocale = (value: string | undefined): value is Locale => (LOCALES as readonly string[]).includes(value ?? '');

export function languageSwitchRoutes(deps: OriginDeps): Router {
  const router = new Router();
  router.post(LANGUAGE_PATH, async (ctx: Context) => {
    requireSameOrigin(ctx, deps);
    const { fields } = await readBody(ctx);
    const lang = fields.lang;
    if (!isLocale(lang)) throw invalidRequest(`Field "lang" must be one of ${LOCALES.join(', ')}.`);
    ctx.cookies.set(LANGUAGE_COOKIE, lang, { path: '/', httpOnly: true, sameSite: 'lax', secure: ctx.secure, maxAge: YEAR_MS, signed: false, overwrite: true });
    const back = fields.return ?? '';
    ctx.status = 303;
    ctx.redirect(isLocalPath(back) ? back : FALLBACK_RETURN);
  });
  return router;
}
