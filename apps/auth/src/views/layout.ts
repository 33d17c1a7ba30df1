/**
 * The page frame every authorization-server page shares. Rules:
 * - assets are same-origin only (CSP); a page showing a `<time data-local>` loads
 *   /static/local-time.js, which rewrites it in the browser's time zone (the server renders UTC);
 *   a page without one loads no script for it;
 * - `<html lang>` is the page's language, and every text of the frame comes from its catalogue;
 * - the footer holds the language switch: a form posting to /language (http/language-switch.ts)
 *   with one button per other language, named in that language, and the current one marked;
 *   it returns to `languageReturn`, else to the page's own address when it answers a GET; a page
 *   that posts itself on at once (form_post) has no switch (nobody reads it, and its form must hold
 *   only the fields it carries), nor has a page showing something only once (new recovery codes).
 */
import { html, type SafeHtml } from '@gatehouse/html';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { LANGUAGE_PATH, LOCALE_NAMES, LOCALES } from '../i18n/locales.ts';

export interface LayoutOptions {
  title: string;
  body: SafeHtml;
  scripts?: string[];
  /** The page's language (i18n/page-language.ts); English when absent. */
  language?: PageLanguage;
  /** Where the language switch returns to, for a page answering a POST (its GET address). */
  languageReturn?: string;
  /** False for a page that posts itself on at once: no language switch. */
  languageSwitch?: boolean;
}

/** The script that shows `<time data-local>` in the browser's time zone. */
export const LOCAL_TIME_SCRIPT = '/static/local-time.js';

/** The language switch of a page's footer; pages with a frame of their own (the web authenticator) use it too. */
export function languageSwitch(language: PageLanguage, returnTo: string | undefined): SafeHtml {
  return html`<form method="post" action="${LANGUAGE_PATH}" class="language-switch" id="language-switch" aria-label="${language.t('layout.language')}">
${returnTo ? html`<input type="hidden" name="return" value="${returnTo}">` : ''}${LOCALES.map((locale) =>
    locale === language.locale
      ? html`<span class="current-language" lang="${locale}" aria-current="true">${LOCALE_NAMES[locale]}</span>`
      : html`<button type="submit" name="lang" value="${locale}" lang="${locale}" class="link-button" id="language-${locale}">${LOCALE_NAMES[locale]}</button>`,
  )}
</form>`;
}

export function layout({ title, body, scripts = [], language = ENGLISH, languageReturn, languageSwitch: withSwitch = true }: LayoutOptions): string {
  return html`<!doctype html>
<html lang="${language.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${language.t('layout.titleSuffix')}</title>
<link rel="stylesheet" href="/static/gatehouse.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
${[...(body.value.includes('data-local=') ? [LOCAL_TIME_SCRIPT] : []), ...scripts].map((src) => html`<script src="${src}" defer></script>`)}
</head>
<body>
<main class="card">
<p class="brand">${language.t('layout.brand')}</p>
${body}
</main>
${withSwitch ? html`<footer class="page-footer">
${languageSwitch(language, languageReturn ?? language.returnTo)}
</footer>` : ''}
</body>
</html>
`.value;
}
