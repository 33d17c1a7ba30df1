/**
 * POST /language: the language switch in every page's footer. Rules:
 * - `lang` must be one of LOCALES (else 400 invalid_request); it is kept in LANGUAGE_COOKIE for a
 *   year (not signed: it holds nothing but a language, and any other value is ignored when read);
 * - no CSRF token: the switch changes nothing but the language of this browser's pages;
 * - the answer is 303 to `return` when it is a path of this app, else to `/`.
 */
import type { Context } from 'koa';
import { ClientError } from '../errors/client-error.ts';
import { isLocalPath } from './page-language.ts';
import { LANGUAGE_COOKIE, LOCALES, type Locale } from './locales.ts';

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

const isLocale = (value: unknown): value is Locale => typeof value === 'string' && (LOCALES as readonly string[]).includes(value);

export function switchLanguage(ctx: Context): void {
  const body = (ctx.request.body ?? {}) as Record<string, unknown>;
  if (!isLocale(body.lang)) throw new ClientError(400, 'invalid_request', 'Request refused', `Field "lang" must be one of ${LOCALES.join(', ')}.`);
  ctx.cookies.set(LANGUAGE_COOKIE, body.lang, { path: '/', httpOnly: true, sameSite: 'lax', secure: ctx.secure, maxAge: YEAR_MS, signed: false, overwrite: true });
  const back = typeof body.return === 'string' ? body.return : '';
  ctx.status = 303;
  ctx.redirect(isLocalPath(back) ? back : '/');
}
