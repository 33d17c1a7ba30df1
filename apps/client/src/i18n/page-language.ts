/**
 * Rules for the language of a relying-party page:
 * - the language switch's cookie (LANGUAGE_COOKIE) wins, then the browser's Accept-Language
 *   (negotiateLocale: quality values, `de-AT` → `de`), else English;
 * - a page rendered in a language says so (`Content-Language`) and names what chose it
 *   (`Vary: Accept-Language, Cookie`);
 * - the language switch returns to the page it is on when that page answers a GET, else to `/`;
 * - English error pages show the error's own title and message; other languages the texts of its code;
 * - times are relative to now ("in 59 minutes"), with the UTC time as their title: these pages run
 *   no script (CSP), so nothing could move an absolute time into the reader's zone.
 */
import type { Context } from 'koa';
import type { SafeHtml } from '@gatehouse/html';
import { createTranslator, negotiateLocale, timeElement, type Translator } from '@gatehouse/html/i18n';
import type { ClientError } from '../errors/client-error.ts';
import { de } from './de.ts';
import { en, type ClientCatalogue } from './en.ts';
import { LANGUAGE_COOKIE, LOCALES, type Locale } from './locales.ts';

export interface PageLanguage extends Translator<ClientCatalogue, Locale> {
  /** The address the language switch returns to. */
  readonly returnTo: string;
  /** An instant relative to `now`, the absolute time (UTC) as its title. */
  relative(ms: number, now: number): SafeHtml;
  /** The title and message of an error page. */
  errorTexts(error: Pick<ClientError, 'code' | 'title' | 'message'>): { title: string; message: string };
}

const CATALOGUES = { en, de } as const;
const translators = new Map<Locale, Translator<ClientCatalogue, Locale>>();

function translator(locale: Locale): Translator<ClientCatalogue, Locale> {
  let found = translators.get(locale);
  if (!found) {
    found = createTranslator<ClientCatalogue, Locale>(locale, CATALOGUES[locale]);
    translators.set(locale, found);
  }
  return found;
}

/** A path of this app the switch may return to: one leading slash, no scheme or host. */
export const isLocalPath = (path: string): boolean => /^\/(?![/\\])/.test(path) && !/[\r\n]/.test(path);

/** The page language of `locale`. */
export function languageFor(locale: Locale, returnTo = '/'): PageLanguage {
  const t = translator(locale);
  return {
    ...t,
    returnTo,
    relative: (ms, now) => timeElement(ms, locale, 'relative', now),
    errorTexts(error) {
      if (locale === 'en') return { title: error.title, message: error.message };
      return { title: t.text(`error.${error.code}.title`), message: t.text(`error.${error.code}.text`) };
    },
  };
}

/** The language of the page this request answers, with its headers set. */
export function pageLanguage(ctx: Context): PageLanguage {
  const locale = negotiateLocale(LOCALES, ctx.get('Accept-Language'), ctx.cookies.get(LANGUAGE_COOKIE, { signed: false }));
  ctx.set('Content-Language', locale);
  ctx.vary('Accept-Language');
  ctx.vary('Cookie');
  const here = ctx.method === 'GET' || ctx.method === 'HEAD' ? ctx.originalUrl : '/';
  return languageFor(locale, isLocalPath(here) ? here : '/');
}
