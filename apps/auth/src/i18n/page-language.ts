/**
 * Rules for the language of an authorization-server page:
 * - the language switch's cookie (LANGUAGE_COOKIE) wins, then the browser's Accept-Language
 *   (negotiateLocale: quality values, `de-AT` → `de`), else English;
 * - a page rendered in a language says so (`Content-Language`) and names what chose it
 *   (`Vary: Accept-Language, Cookie`), so no cache hands one reader's language to another;
 * - the language switch returns to the page it is on: a GET page's own address; a page answering
 *   a POST names its address itself (LayoutOptions.languageReturn), else the switch leads to the
 *   account page;
 * - a mail is written in the language of the request that causes it (requestLanguage): the
 *   account keeps no language, and that request is the reader's latest choice;
 * - English error pages show the error's own message; other languages show the text of its code
 *   (`error.<code>`), with the wait of a 429 from its Retry-After, or the text of the refusal it
 *   names when its code's text says it too generically (`error.<code>.<detail>`, ErrorDetail).
 */
import type { Context } from 'koa';
import type { SafeHtml } from '@gatehouse/html';
import { createTranslator, negotiateLocale, timeElement, type Translator } from '@gatehouse/html/i18n';
import { de } from './de.ts';
import { en, type AuthCatalogue } from './en.ts';
import { LANGUAGE_COOKIE, LOCALES, type Locale } from './locales.ts';

export interface PageLanguage extends Translator<AuthCatalogue, Locale> {
  /** The address the language switch returns to; absent for a page answering a POST. */
  readonly returnTo: string | undefined;
  /** An instant in the page's locale: UTC, rewritten in the browser's zone by /static/local-time.js. */
  dateTime(ms: number): SafeHtml;
  /** An instant relative to `now` ("5 minutes ago"), the absolute time as its title. */
  relative(ms: number, now: number): SafeHtml;
  /** What an error page or a form says about a refusal. */
  errorText(error: { code: string; message: string; headers: Readonly<Record<string, string>>; detail?: string | undefined }): string;
}

const CATALOGUES = { en, de } as const;
const translators = new Map<Locale, Translator<AuthCatalogue, Locale>>();

function translator(locale: Locale): Translator<AuthCatalogue, Locale> {
  let found = translators.get(locale);
  if (!found) {
    found = createTranslator<AuthCatalogue, Locale>(locale, CATALOGUES[locale]);
    translators.set(locale, found);
  }
  return found;
}

/** The page language of `locale`; `returnTo` is where its language switch leads back to. */
export function languageFor(locale: Locale, returnTo?: string): PageLanguage {
  const t = translator(locale);
  return {
    ...t,
    returnTo,
    dateTime: (ms) => timeElement(ms, locale),
    relative: (ms, now) => timeElement(ms, locale, 'relative', now),
    errorText(error) {
      if (locale === 'en') return error.message;
      if (error.code === 'too_many_attempts') {
        const seconds = Number(error.headers['Retry-After']);
        if (Number.isInteger(seconds) && seconds > 0) {
          const wait = seconds < 60 ? t.t('wait.seconds', { n: seconds }) : t.t('wait.minutes', { n: Math.ceil(seconds / 60) });
          return t.t('error.tooManyAttemptsWait', { wait });
        }
      }
      if (error.detail !== undefined && error.detail.startsWith(`${error.code}.`) && t.has(`error.${error.detail}`)) return t.text(`error.${error.detail}`);
      return t.text(`error.${error.code}`);
    },
  };
}

/** English pages, for a page rendered without a request (and the tests of views). */
export const ENGLISH: PageLanguage = languageFor('en');

/** A path of this server the switch may return to: one leading slash, no scheme or host. */
export const isLocalPath = (path: string): boolean => /^\/(?![/\\])/.test(path) && !/[\r\n]/.test(path);

const requestLocale = (ctx: Context): Locale => negotiateLocale(LOCALES, ctx.get('Accept-Language'), ctx.cookies.get(LANGUAGE_COOKIE));

/**
 * The language of this request for what it causes beyond its own page (a mail): chosen as a
 * page's, and no header is set, since the answer need not be in it.
 */
export const requestLanguage = (ctx: Context): PageLanguage => languageFor(requestLocale(ctx));

/** The language of the page this request answers, with its headers set. */
export function pageLanguage(ctx: Context): PageLanguage {
  const locale = requestLocale(ctx);
  ctx.set('Content-Language', locale);
  ctx.vary('Accept-Language');
  ctx.vary('Cookie');
  const here = ctx.method === 'GET' || ctx.method === 'HEAD' ? ctx.originalUrl : undefined;
  return languageFor(locale, here !== undefined && isLocalPath(here) ? here : undefined);
}
