/** The languages of the authorization server's pages; the first is the default. */
export const LOCALES = ['en', 'de'] as const;

export type Locale = (typeof LOCALES)[number];

/** Each language's name in itself, as the language switch offers it. */
export const LOCALE_NAMES: Readonly<Record<Locale, string>> = { en: 'English', de: 'Deutsch' };

/** The cookie the language switch sets; a value outside LOCALES is ignored. */
export const LANGUAGE_COOKIE = 'gatehouse.lang';

/** Where the language switch posts (http/language-switch.ts). */
export const LANGUAGE_PATH = '/language';
