/**
 * The pages of a federated sign-in (interactions/federated/): its refusals and the choice an
 * upstream user without a link makes. Rules:
 * - every page says what happened in plain words, names the stable error code, and offers the
 *   way on: try the provider again, sign in another way (the login page of the same
 *   interaction), or go back to the app (the authorization ends with access_denied);
 * - without a live interaction there is no app to go back to: the page says to start again
 *   from the app;
 * - every action is a form post carrying the interaction's uid (no script needed; keyboard only).
 */
import { html, type SafeHtml } from '@gatehouse/html';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { layout } from './layout.ts';

/** The paths of the federated sign-in's forms. */
export const FEDERATED_PATHS = {
  start: (slug: string): string => `/login/federated/${encodeURIComponent(slug)}`,
  choice: '/login/federated-choice',
  cancel: '/login/federated-cancel',
} as const;

export interface FederatedProviderButton {
  slug: string;
  displayName: string;
}

/** The "Continue with …" buttons of the login page, one form each. */
export function providerButtons(uid: string, providers: readonly FederatedProviderButton[], language: PageLanguage = ENGLISH): SafeHtml | '' {
  if (providers.length === 0) return '';
  return html`<section class="federated" aria-label="${language.t('federated.otherProviders')}">
${providers.map(
  (provider) => html`<form method="post" action="${FEDERATED_PATHS.start(provider.slug)}">
<input type="hidden" name="uid" value="${uid}">
<button type="submit" class="secondary" data-provider="${provider.slug}">${language.t('federated.continueWith', { provider: provider.displayName })}</button>
</form>`,
)}
</section>`;
}

/** The ways on from a federated page of a live interaction. */
export interface FederatedWayOn {
  uid: string;
  clientName: string;
  /** Offer to try this provider again. */
  retry?: FederatedProviderButton;
}

function wayOn(way: FederatedWayOn | undefined, language: PageLanguage): SafeHtml {
  const { t } = language;
  if (!way) return html`<p>${t('federated.startAgainAtApp')}</p>`;
  return html`${way.retry
    ? html`<form method="post" action="${FEDERATED_PATHS.start(way.retry.slug)}">
<input type="hidden" name="uid" value="${way.uid}">
<button type="submit" id="federated-retry">${t('federated.tryAgain', { provider: way.retry.displayName })}</button>
</form>`
    : ''}
<p><a class="button secondary" href="/interaction/${way.uid}" id="federated-other-way">${t('federated.otherWay')}</a></p>
<form method="post" action="${FEDERATED_PATHS.cancel}">
<input type="hidden" name="uid" value="${way.uid}">
<button type="submit" class="secondary" id="federated-back">${t('way.backTo', { app: way.clientName })}</button>
</form>`;
}

export interface FederatedErrorPageModel {
  title: string;
  message: string;
  code: string;
  requestId?: string;
  way?: FederatedWayOn;
  /** The page's language (i18n/page-language.ts). */
  language?: PageLanguage;
}

export function federatedErrorPage(model: FederatedErrorPageModel): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: model.title,
    language,
    ...(model.way ? { languageReturn: `/interaction/${model.way.uid}` } : {}),
    body: html`<h1>${model.title}</h1>
<p class="error" role="alert">${model.message}</p>
<p class="muted">${t('message.errorCode')} <code>${model.code}</code>${model.requestId ? t('message.request', { id: model.requestId }) : ''}</p>
${wayOn(model.way, language)}`,
  });
}

/**
 * The end of a federated sign-in the upstream's MFA completed: the callback was the last hop of
 * the upstream's own form post, whose CSP form-action (a strict upstream, another Gatehouse) would
 * refuse further redirects to the app; this page starts a navigation of its own instead, by a
 * same-origin script (/static/form-post.js), with a Continue button without script.
 */
export function federatedContinuePage(model: { resumeUrl: string; clientName: string; language?: PageLanguage }): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('federated.signedIn'),
    scripts: ['/static/form-post.js'],
    language,
    languageSwitch: false,
    body: html`<h1>${t('federated.signedIn')}</h1>
<p role="status">${t('federated.takingBack', { client: html`<strong>${model.clientName}</strong>` })}</p>
<form id="form-post" method="get" action="${model.resumeUrl}">
<button type="submit" id="federated-continue">${t('federated.continueTo', { client: model.clientName })}</button>
</form>`,
  });
}

export interface FederatedChoicePageModel {
  uid: string;
  clientName: string;
  providerName: string;
  /** The local account with the upstream's verified e-mail, when there is one. */
  matchedUsername?: string;
  /** Whether a new account may be created (just-in-time provisioning). */
  canCreate: boolean;
  /** The page's language (i18n/page-language.ts). */
  language?: PageLanguage;
}

/**
 * An upstream user with no link yet: link a Gatehouse account (proved by its password and second
 * factor on the next pages), or create a new one when the provider provisions.
 */
export function federatedChoicePage(model: FederatedChoicePageModel): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  const intro = model.matchedUsername
    ? html`<p>${t('federated.matched', { provider: model.providerName, username: html`<strong class="account-name">${model.matchedUsername}</strong>` })}</p>`
    : html`<p role="alert" class="error">${t('federated.noAccount', { provider: model.providerName })}</p>
<p>${t('federated.haveAccount')}</p>`;
  return layout({
    title: t('federated.linkTitle'),
    language,
    languageReturn: `/interaction/${model.uid}`,
    body: html`<h1>${t('federated.linkTitle')}</h1>
<p class="muted">${t('client.continueTo', { name: model.clientName })}</p>
${intro}
<form method="post" action="${FEDERATED_PATHS.choice}">
<input type="hidden" name="uid" value="${model.uid}">
<button type="submit" name="choice" value="link" id="federated-link" autofocus>${t('federated.link')}</button>
${model.canCreate ? html`<button type="submit" name="choice" value="create" class="secondary" id="federated-create">${t('federated.create')}</button>` : ''}
</form>
<form method="post" action="${FEDERATED_PATHS.cancel}">
<input type="hidden" name="uid" value="${model.uid}">
<button type="submit" class="secondary" id="federated-back">${t('way.backTo', { app: model.clientName })}</button>
</form>`,
  });
}
