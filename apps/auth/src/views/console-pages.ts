/**
 * The admin console's pages that are not a section's: the 403 for someone who is not an
 * admin, the "sign in again" page of a post on a stale sign-in, the error pages of the
 * console's refusals, and the confirmation page every destructive action shows first. Each says
 * what happened and offers the way on, in the viewer's language.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import type { PageLanguage } from '../i18n/page-language.ts';
import { layout } from './layout.ts';
import { consoleLayout, csrfField, errorCodeLine, type ConsoleFrame } from './console-layout.ts';

export interface PageLink {
  href: string;
  label: string;
}

/** A page outside the console's frame (no admin known yet): a heading, one message, the ways on. */
export function consoleMessagePage(model: { language: PageLanguage; languageReturn?: string; title: string; message: string; code?: string; detail?: string; links: readonly PageLink[] }): string {
  const { language } = model;
  return layout({
    title: model.title,
    language,
    ...(model.languageReturn ? { languageReturn: model.languageReturn } : {}),
    body: html`<h1>${model.title}</h1>
<p class="${model.code ? 'error' : ''}" role="${model.code ? 'alert' : 'status'}" id="message">${model.message}</p>
${model.detail ? html`<p>${model.detail}</p>` : ''}
${model.code ? errorCodeLine(language, model.code) : ''}
<ul class="ways-on">${model.links.map((link) => html`<li><a href="${link.href}">${link.label}</a></li>`)}</ul>`,
  });
}

/** 403 for a signed-in account in neither the admins nor the auditors group. */
export function notAnAdminPage(model: { language: PageLanguage; username: string; adminGroup: string; readOnlyGroup: string }): string {
  const { t } = model.language;
  return consoleMessagePage({
    language: model.language,
    title: t('console.notAdmin.title'),
    message: t('console.notAdmin.message', { username: model.username }),
    detail: t('console.notAdmin.detail', { adminGroup: model.adminGroup, readOnlyGroup: model.readOnlyGroup }),
    code: 'forbidden',
    links: [
      { href: '/account', label: t('console.goToAccountPage') },
      { href: AUTH_ROUTES.logout, label: t('console.notAdmin.signOut') },
    ],
  });
}

/** 401 for a post without a signed-in, fresh enough session: nothing was changed. */
export function signInAgainPage(model: { language: PageLanguage; languageReturn: string; signInUrl: string; stale: boolean }): string {
  const { t } = model.language;
  return consoleMessagePage({
    language: model.language,
    languageReturn: model.languageReturn,
    title: model.stale ? t('console.signInAgain.staleTitle') : t('console.signInAgain.title'),
    message: model.stale ? t('console.signInAgain.stale') : t('console.signInAgain.notSignedIn'),
    code: 'login_required',
    links: [{ href: model.signInUrl, label: t('console.signInAgain.title') }],
  });
}

export interface ConfirmModel {
  heading: string;
  /** What the action will do, one sentence each. */
  consequences: readonly (string | SafeHtml)[];
  /** Where the form posts. */
  action: string;
  fields?: Record<string, string>;
  submitLabel: string;
  cancelHref: string;
  /** A red button (the action removes or ends something). */
  danger?: boolean;
}

/** The body of a confirmation page: what will happen, a button that does it, a way back. */
export function confirmBody(frame: Pick<ConsoleFrame, 'viewer'>, model: ConfirmModel): SafeHtml {
  const { t } = frame.viewer.language;
  return html`<h1>${model.heading}</h1>
<div class="confirm" id="confirm">
<p>${t('console.confirm.thisWill')}</p>
<ul>${model.consequences.map((line) => html`<li>${line}</li>`)}</ul>
<form method="post" action="${model.action}">
${csrfField(frame.viewer)}
${Object.entries(model.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<div class="actions"><button type="submit" id="confirm-action" class="${model.danger ? 'danger' : ''}">${model.submitLabel}</button>
<a class="button secondary" href="${model.cancelHref}" id="cancel">${t('console.cancel')}</a></div>
</form></div>`;
}

export function confirmPage(frame: Omit<ConsoleFrame, 'body'>, model: ConfirmModel): string {
  return consoleLayout({ ...frame, body: confirmBody(frame, model) });
}

/** A refusal inside the console (404 user, 403 read-only, 400 bad input), in the console's frame. */
export function consoleErrorPage(frame: Omit<ConsoleFrame, 'body'>, model: { title: string; message: string; code: string; back?: PageLink }): string {
  const { language } = frame.viewer;
  return consoleLayout({
    ...frame,
    body: html`<h1>${model.title}</h1>
<div class="error" role="alert" id="console-error"><p>${model.message}</p>${errorCodeLine(language, model.code)}</div>
<p><a href="${model.back?.href ?? '/admin'}">${model.back?.label ?? language.t('console.backToDashboard')}</a></p>`,
  });
}
