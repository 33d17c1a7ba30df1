/**
 * The admin console's page frame (/admin): a header with the console's sections, who is signed
 * in and in which role, then the page. Rules:
 * - every page has one h1, a skip link to the content, a labelled navigation whose current
 *   section carries aria-current, and a flash message (console/console-flash.ts) at the top of
 *   the content, where the admin is looking after a form;
 * - a read-only admin (group auditors) sees a banner saying so, and the write controls are not
 *   rendered for them (`writeForm` returns nothing): the server refuses their posts too;
 * - every form that changes something carries the CSRF token (console/console-csrf.ts);
 * - same-origin stylesheet and scripts only (the CSP); no inline script or style.
 */
import { html, raw, type SafeHtml } from '@gatehouse/html';
import { AUTH_ROUTES } from '@gatehouse/contracts';

/** One entry of the console's navigation (a section's, console/sections.ts). */
export interface ConsoleNavItem {
  key: string;
  href: string;
  label: string;
}

/** Who is looking, as the views need it. */
export interface ConsoleViewer {
  username: string;
  role: 'admin' | 'auditor';
  canWrite: boolean;
  /** The CSRF token every form carries. */
  csrf: string;
}

export interface ConsoleFlashView {
  kind: 'notice' | 'error';
  text: string;
  code?: string;
}

export interface ConsoleFrame {
  title: string;
  /** The nav key of the section the page belongs to. */
  current: string;
  nav: readonly ConsoleNavItem[];
  viewer: ConsoleViewer;
  flash?: ConsoleFlashView;
  body: SafeHtml;
  scripts?: readonly string[];
}

export const ROLE_LABELS = { admin: 'administrator', auditor: 'read-only auditor' } as const;

/** The flash message as the top of the content shows it. */
export function flashMessage(flash: ConsoleFlashView | undefined): SafeHtml | '' {
  if (!flash) return '';
  return flash.kind === 'notice'
    ? html`<p class="notice" role="status" id="flash">${flash.text}</p>`
    : html`<div class="error" role="alert" id="flash"><p>${flash.text}</p>${flash.code ? html`<p class="muted">Error code: <code>${flash.code}</code></p>` : ''}</div>`;
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
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · Gatehouse admin</title>
<link rel="stylesheet" href="/static/gatehouse.css">
<link rel="stylesheet" href="/static/console.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
${(frame.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
</head>
<body class="console">
<a class="skip-link" href="#content">Skip to content</a>
<header class="console-header">
<p class="brand"><a href="/admin">Gatehouse admin</a></p>
<nav aria-label="Admin console"><ul>
${frame.nav.map((item) => html`<li><a href="${item.href}"${item.key === frame.current ? raw(' aria-current="page"') : ''}>${item.label}</a></li>`)}
</ul></nav>
<p class="whoami">Signed in as <strong id="console-user">${viewer.username}</strong> (<span id="console-role">${ROLE_LABELS[viewer.role]}</span>) · <a href="/account">Your account</a> · <a href="${AUTH_ROUTES.logout}">Sign out</a></p>
</header>
<main id="content" class="console-main" tabindex="-1">
${viewer.canWrite ? '' : html`<p class="readonly-banner" id="readonly-banner">Read-only access: you can see everything here and change nothing.</p>`}
${flashMessage(frame.flash)}
${frame.body}
</main>
</body>
</html>
`.value;
}
