/**
 * The admin console's page frame (/admin): a header with the console's sections, who is signed
 * in and in which role, then the page. Rules:
 * - every page has one h1, a skip link to the content, a labelled navigation whose current
 *   section carries aria-current, and a flash message (console/console-flash.ts) at the top of
 *   the content, where the admin is looking after a form;
 * - a read-only admin (group auditors) sees a banner saying so, and the write controls are not
 *   rendered for them (`writeForm` returns nothing): the server refuses their posts too;
 * - every form that changes something carries the CSRF token (console/console-csrf.ts);
 * - every text is the viewer's language's (`console.*` in i18n/console-en.ts), `<html lang>` says
 *   which, and the footer holds the language switch of every page (views/layout.ts), returning to
 *   the page (`languageReturn` for a page answering a post);
 * - times are `<time data-local>` (PageLanguage.dateTime), so a page showing one loads
 *   /static/local-time.js, which shows it in the browser's time zone;
 * - same-origin stylesheet and scripts only (the CSP); no inline script or style.
 */
import { html, raw, type SafeHtml } from '@gatehouse/html';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import type { PageLanguage } from '../i18n/page-language.ts';
import { languageSwitch, LOCAL_TIME_SCRIPT } from './layout.ts';

/** The console's sections, each named in the catalogue as `console.nav.<key>`. */
export type ConsoleNavKey = 'dashboard' | 'users' | 'clients' | 'scopes' | 'keys' | 'audit';

/** One entry of the console's navigation (a section's, console/sections.ts). */
export interface ConsoleNavItem {
  key: ConsoleNavKey;
  href: string;
}

/** Who is looking, as the views need it. */
export interface ConsoleViewer {
  username: string;
  role: 'admin' | 'auditor';
  canWrite: boolean;
  /** The CSRF token every form carries. */
  csrf: string;
  /** The language of the viewer's pages. */
  language: PageLanguage;
}

export interface ConsoleFlashView {
  kind: 'notice' | 'error';
  text: string;
  code?: string;
}

export interface ConsoleFrame {
  title: string;
  /** The nav key of the section the page belongs to. */
  current: ConsoleNavKey;
  nav: readonly ConsoleNavItem[];
  viewer: ConsoleViewer;
  flash?: ConsoleFlashView;
  body: SafeHtml;
  scripts?: readonly string[];
  /** Where the language switch returns to, for a page answering a post (a console page's path). */
  languageReturn?: string;
}

/** "Error code: <code>…</code>" under a refusal. */
export const errorCodeLine = (language: PageLanguage, code: string): SafeHtml => html`<p class="muted">${language.t('console.errorCode')} <code>${code}</code></p>`;

/** The flash message as the top of the content shows it. */
export function flashMessage(flash: ConsoleFlashView | undefined, language: PageLanguage): SafeHtml | '' {
  if (!flash) return '';
  return flash.kind === 'notice'
    ? html`<p class="notice" role="status" id="flash">${flash.text}</p>`
    : html`<div class="error" role="alert" id="flash"><p>${flash.text}</p>${flash.code ? errorCodeLine(language, flash.code) : ''}</div>`;
}

/** The hidden CSRF field of a console form. */
export const csrfField = (viewer: ConsoleViewer): SafeHtml => html`<input type="hidden" name="csrf" value="${viewer.csrf}">`;

export interface WriteFormOptions {
  action: string;
  label: string;
  /** Hidden fields besides the CSRF token. */
  fields?: Record<string, string>;
  id?: string;
  /** A red button (the action removes or ends something). */
  danger?: boolean;
  /** The button's accessible name when the label alone is ambiguous in a list. */
  ariaLabel?: string;
  /** `get` for a link-like step to a confirmation page (no CSRF field needed). */
  method?: 'get' | 'post';
}

/** A one-button form that changes something; nothing for a read-only admin. */
export function writeForm(viewer: ConsoleViewer, options: WriteFormOptions): SafeHtml | '' {
  if (!viewer.canWrite) return '';
  const method = options.method ?? 'post';
  const fields = Object.entries(options.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form method="${method}" action="${options.action}" class="inline">${method === 'post' ? csrfField(viewer) : ''}${fields}<button type="submit"${options.id ? html` id="${options.id}"` : ''} class="${options.danger ? 'danger' : 'secondary'}"${options.ariaLabel ? html` aria-label="${options.ariaLabel}"` : ''}>${options.label}</button></form>`;
}

export function consoleLayout(frame: ConsoleFrame): string {
  const { viewer } = frame;
  const { language } = viewer;
  const t = language.t;
  const flash = flashMessage(frame.flash, language);
  const scripts = [...(frame.body.value.includes('data-local=') ? [LOCAL_TIME_SCRIPT] : []), ...(frame.scripts ?? [])];
  return html`<!doctype html>
<html lang="${language.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · ${t('console.titleSuffix')}</title>
<link rel="stylesheet" href="/static/gatehouse.css">
<link rel="stylesheet" href="/static/console.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
${scripts.map((src) => html`<script src="${src}" defer></script>`)}
</head>
<body class="console">
<a class="skip-link" href="#content">${t('console.skipToContent')}</a>
<header class="console-header">
<p class="brand"><a href="/admin">${t('console.brand')}</a></p>
<nav aria-label="${t('console.navLabel')}"><ul>
${frame.nav.map((item) => html`<li><a href="${item.href}"${item.key === frame.current ? raw(' aria-current="page"') : ''}>${t(`console.nav.${item.key}`)}</a></li>`)}
</ul></nav>
<p class="whoami">${t('console.signedInAs', { username: html`<strong id="console-user">${viewer.username}</strong>`, role: html`<span id="console-role">${t(`console.role.${viewer.role}`)}</span>` })} · <a href="/account">${t('console.yourAccount')}</a> · <a href="${AUTH_ROUTES.logout}">${t('console.signOut')}</a></p>
</header>
<main id="content" class="console-main" tabindex="-1">
${viewer.canWrite ? '' : html`<p class="readonly-banner" id="readonly-banner">${t('console.readOnlyBanner')}</p>`}
${flash}
${frame.body}
</main>
<footer class="page-footer console-footer">
${languageSwitch(language, frame.languageReturn ?? language.returnTo)}
</footer>
</body>
</html>
`.value;
}
