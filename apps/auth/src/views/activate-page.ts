import { html, type SafeHtml } from '@gatehouse/html';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import type { ScopeDescription } from '../consent/scope-descriptions.ts';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { layout } from './layout.ts';
import { scopeText } from './scope-text.ts';

/** What went wrong with the code the user typed (or why the page is shown again). */
export interface ActivateProblem {
  message: string;
  /** The stable code named under the message (docs/spec.md §7). */
  code: string;
  /** A request that ended (denied) rather than failed: shown as a notice, not an error. */
  notice?: boolean;
}

export interface ActivateCodeModel {
  /** oidc-provider's form token for this browser session. */
  xsrf: string;
  /** The code to show again in the field (what the user typed). */
  userCode?: string;
  problem?: ActivateProblem;
  /** The page's language (i18n/page-language.ts). */
  language?: PageLanguage;
}

/**
 * The verification page (RFC 8628 §3.3): one field for the code the device shows. Letters may be
 * typed in any case, with or without the dash; the field is a plain form, so it works without
 * script and by keyboard. An error keeps the typed code in the field and says what to do next.
 */
export function activateCodePage(model: ActivateCodeModel): string {
  const problem = model.problem;
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('activate.title'),
    language,
    languageReturn: AUTH_ROUTES.activate,
    body: html`<h1>${t('activate.title')}</h1>
${problem ? problemBlock(problem, language) : html`<p id="activate-intro">${t('activate.intro')}</p>`}
<form method="post" action="${AUTH_ROUTES.activate}" id="activate-form" autocomplete="off">
<input type="hidden" name="xsrf" value="${model.xsrf}">
<label for="user_code">${t('activate.code')}</label>
<input id="user_code" name="user_code" class="user-code" value="${model.userCode ?? ''}" required maxlength="32" autocapitalize="characters" spellcheck="false" placeholder="XXXX-XXXX" aria-describedby="user-code-help" autofocus>
<p class="muted" id="user-code-help">${t('activate.codeHelp')}</p>
<button type="submit" id="activate-continue">${t('activate.continue')}</button>
</form>`,
  });
}

function problemBlock(problem: ActivateProblem, language: PageLanguage): SafeHtml {
  return html`<p class="${problem.notice ? 'notice' : 'error'}" role="${problem.notice ? 'status' : 'alert'}" id="activate-problem">${problem.message}</p>
<p class="muted">${language.t('message.errorCode')} <code>${problem.code}</code></p>`;
}

export interface ActivateConfirmModel {
  xsrf: string;
  /** The user code as the device shows it (XXXX-XXXX). */
  userCode: string;
  clientName: string;
  scopes: ScopeDescription[];
  /** What the device said about itself when it asked (its address and user agent). */
  device: { ip?: string; userAgent?: string };
  /** The account of the browser's SSO session, when there is one. */
  username?: string;
  /** The page's language (i18n/page-language.ts). */
  language?: PageLanguage;
}

/**
 * The confirmation (RFC 8628 §5.4): which application asks, for what, from which device, and
 * Approve / Deny. One form, two submit buttons, so it works without script and by keyboard:
 * Approve has the focus, Tab reaches Deny. Approve continues to the sign-in when the browser has
 * no session.
 */
export function activateConfirmPage(model: ActivateConfirmModel): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('activate.confirmTitle'),
    language,
    languageReturn: AUTH_ROUTES.activate,
    body: html`<h1>${t('activate.confirmHeading', { client: html`<span id="activate-client">${model.clientName}</span>` })}</h1>
<p class="muted">${t('activate.onlyIf')}</p>
<p class="user-code-shown" id="activate-code">${model.userCode}</p>
${model.scopes.length ? html`<p>${t('activate.asking', { client: model.clientName })}</p>
<ul class="scopes" id="activate-scopes">${model.scopes.map(
      (s) => html`<li data-scope="${s.scope}">${scopeText(s, language)}${s.description === s.scope ? '' : html` <code>${s.scope}</code>`}</li>`,
    )}</ul>` : ''}
<div class="request"><dl>
<dt>${t('activate.deviceAddress')}</dt><dd id="activate-device-ip">${model.device.ip ?? t('activate.unknown')}</dd>
<dt>${t('activate.deviceSoftware')}</dt><dd id="activate-device-ua">${model.device.userAgent || t('activate.unknown')}</dd>
</dl></div>
${model.username ? html`<p class="muted">${t('activate.signedInAs', { username: html`<strong id="activate-username">${model.username}</strong>` })}</p>` : html`<p class="muted">${t('activate.signInNext')}</p>`}
<form method="post" action="${AUTH_ROUTES.activate}" id="activate-decision">
<input type="hidden" name="xsrf" value="${model.xsrf}">
<input type="hidden" name="user_code" value="${model.userCode}">
<button type="submit" name="confirm" value="yes" id="activate-approve" autofocus>${t('activate.approve')}</button>
<button type="submit" name="abort" value="yes" class="secondary" id="activate-deny">${t('activate.deny')}</button>
</form>`,
  });
}

/** The end of an approved device sign-in: the device continues by itself. */
export function activateDonePage(clientName: string | undefined, language: PageLanguage = ENGLISH): string {
  const { t } = language;
  return layout({
    title: t('activate.doneTitle'),
    language,
    languageReturn: AUTH_ROUTES.activate,
    body: html`<h1>${t('activate.doneTitle')}</h1>
<p class="notice" role="status" id="activate-done">${t('activate.done', { client: html`<strong>${clientName ?? t('activate.theApplication')}</strong>` })}</p>
<p class="muted">${t('activate.doneMore', { again: html`<a href="${AUTH_ROUTES.activate}">${t('activate.enterAnother')}</a>`, account: html`<a href="/account/apps">${t('activate.accountPage')}</a>` })}</p>`,
  });
}

/** Too many wrong codes from this address: how long to wait, and the way back to the form. */
export function activateWaitPage(retryAfterSeconds: number, language: PageLanguage = ENGLISH): string {
  const { t } = language;
  return layout({
    title: t('activate.waitTitle'),
    language,
    languageReturn: AUTH_ROUTES.activate,
    body: html`<h1>${t('activate.waitTitle')}</h1>
<p class="error" role="alert" id="activate-wait">${t('activate.wait', { seconds: retryAfterSeconds })}</p>
<p class="muted">${t('message.errorCode')} <code>too_many_attempts</code></p>
<a class="button secondary" href="${AUTH_ROUTES.activate}" id="activate-again">${t('activate.again')}</a>`,
  });
}

/** A step of the device sign-in this browser cannot continue: what happened, and the way back to the code form. */
export function activateRestartPage(message: string, code: string, language: PageLanguage = ENGLISH): string {
  const { t } = language;
  return layout({
    title: t('activate.title'),
    language,
    languageReturn: AUTH_ROUTES.activate,
    body: html`<h1>${t('activate.title')}</h1>
<p class="error" role="alert" id="activate-problem">${message}</p>
<p class="muted">${t('message.errorCode')} <code>${code}</code></p>
<a class="button secondary" href="${AUTH_ROUTES.activate}" id="activate-again">${t('activate.again')}</a>`,
  });
}
