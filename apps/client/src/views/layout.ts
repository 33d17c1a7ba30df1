/**
 * The page frame of every relying-party page. Rules:
 * - the only assets are the same-origin stylesheet and favicon (CSP: no script);
 * - `<html lang>` is the page's language, and every text of the frame comes from its catalogue;
 * - the footer holds the language switch: a form posting to /language (i18n/language-switch.ts)
 *   with one button per other language, named in that language, the current one marked.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import type { PageLanguage } from '../i18n/page-language.ts';
import { LANGUAGE_PATH, LOCALE_NAMES, LOCALES } from '../i18n/locales.ts';

export interface LayoutOptions {
  /** The app's name (its client id), shown in the header and the title. */
  appName: string;
  title: string;
  body: SafeHtml;
  /** The page's language (i18n/page-language.ts). */
  language: PageLanguage;
}

function languageSwitch(language: PageLanguage): SafeHtml {
  return html`<form method="post" action="${LANGUAGE_PATH}" class="language-switch" id="language-switch" aria-label="${language.t('layout.language')}">
<input type="hidden" name="return" value="${language.returnTo}">
${LOCALES.map((locale) =>
  locale === language.locale
    ? html`<span class="current-language" lang="${locale}" aria-current="true">${LOCALE_NAMES[locale]}</span>`
    : html`<button type="submit" name="lang" value="${locale}" lang="${locale}" class="link-button" id="language-${locale}">${LOCALE_NAMES[locale]}</button>`,
)}
</form>`;
}

export function layout({ appName, title, body, language }: LayoutOptions): string {
  return html`<!doctype html>
<html lang="${language.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${appName}</title>
<link rel="stylesheet" href="/static/client.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
</head>
<body>
<header class="bar"><span class="app" id="app-name">${appName}</span><span class="muted">${language.t('layout.tagline')}</span></header>
<main class="card">
${body}
</main>
<footer class="page-footer">
${languageSwitch(language)}
</footer>
</body>
</html>
`.value;
}
