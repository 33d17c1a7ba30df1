/**
 * The admin console's pages that are not a section's: the 403 for someone who is not an
 * admin, the "sign in again" page of a post on a stale sign-in, the error pages of the
 * console's refusals, and the confirmation page every destructive action shows first. Each says
 * what happened and offers the way on.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { layout } from './layout.ts';
import { consoleLayout, csrfField, type ConsoleFrame } from './console-layout.ts';

export interface PageLink {
  href: string;
  label: string;
}

/** A page outside the console's frame (no admin known yet): a heading, one message, the ways on. */
export function consoleMessagePage(model: { title: string; message: string; code?: string; detail?: string; links: readonly PageLink[] }): string {
  return layout({
    title: model.title,
    body: html`<h1>${model.title}</h1>
<p class="${model.code ? 'error' : ''}" role="${model.code ? 'alert' : 'status'}" id="message">${model.message}</p>
${model.detail ? html`<p>${model.detail}</p>` : ''}
${model.code ? html`<p class="muted">Error code: <code>${model.code}</code></p>` : ''}
<ul class="ways-on">${model.links.map((link) => html`<li><a href="${link.href}">${link.label}</a></li>`)}</ul>`,
  });
}

/** 403 for a signed-in account in neither the admins nor the auditors group. */
export function notAnAdminPage(model: { username: string; adminGroup: string; readOnlyGroup: string }): string {
  return consoleMessagePage({
    title: 'You do not have access to the admin console',
    message: `You are signed in as ${model.username}, and this account is not an administrator.`,
    detail: `The admin console is open to members of the "${model.adminGroup}" group, and read-only to members of the "${model.readOnlyGroup}" group. Ask an administrator to add you to one if you need it.`,
    code: 'forbidden',
    links: [
      { href: '/account', label: 'Go to your account page' },
      { href: AUTH_ROUTES.logout, label: 'Sign out and sign in as someone else' },
    ],
  });
}

/** 401 for a post without a signed-in, fresh enough session: nothing was changed. */
export function signInAgainPage(model: { signInUrl: string; stale: boolean }): string {
  return consoleMessagePage({
    title: model.stale ? 'Sign in again to continue' : 'Sign in to the admin console',
    message: model.stale
      ? 'Your sign-in is too old for the admin console, so nothing was changed. Sign in again, then repeat what you were doing.'
      : 'You are not signed in, so nothing was changed. Sign in, then repeat what you were doing.',
    code: 'login_required',
    links: [{ href: model.signInUrl, label: 'Sign in to the admin console' }],
  });
}

export interface ConfirmModel {
  heading: string;
  /** What the action will do, one sentence each. */
  consequences: readonly string[];
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
  return html`<h1>${model.heading}</h1>
<div class="confirm" id="confirm">
<p>This will:</p>
<ul>${model.consequences.map((line) => html`<li>${line}</li>`)}</ul>
<form method="post" action="${model.action}">
${csrfField(frame.viewer)}
${Object.entries(model.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<div class="actions"><button type="submit" id="confirm-action" class="${model.danger ? 'danger' : ''}">${model.submitLabel}</button>
<a class="button secondary" href="${model.cancelHref}" id="cancel">Cancel</a></div>
</form></div>`;
}

export function confirmPage(frame: Omit<ConsoleFrame, 'body'>, model: ConfirmModel): string {
  return consoleLayout({ ...frame, body: confirmBody(frame, model) });
}

/** A refusal inside the console (404 user, 403 read-only, 400 bad input), in the console's frame. */
export function consoleErrorPage(frame: Omit<ConsoleFrame, 'body'>, model: { title: string; message: string; code: string; back?: PageLink }): string {
  return consoleLayout({
    ...frame,
    body: html`<h1>${model.title}</h1>
<div class="error" role="alert" id="console-error"><p>${model.message}</p><p class="muted">Error code: <code>${model.code}</code></p></div>
<p><a href="${model.back?.href ?? '/admin'}">${model.back?.label ?? 'Back to the dashboard'}</a></p>`,
  });
}
