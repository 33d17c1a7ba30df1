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
export function providerButtons(uid: string, providers: readonly FederatedProviderButton[]): SafeHtml | '' {
  if (providers.length === 0) return '';
  return html`<section class="federated" aria-label="Sign in with another provider">
${providers.map(
  (provider) => html`<form method="post" action="${FEDERATED_PATHS.start(provider.slug)}">
<input type="hidden" name="uid" value="${uid}">
<button type="submit" class="secondary" data-provider="${provider.slug}">Continue with ${provider.displayName}</button>
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

function wayOn(way: FederatedWayOn | undefined): SafeHtml {
  if (!way) return html`<p>Go back to the application you came from and sign in again.</p>`;
  return html`${way.retry
    ? html`<form method="post" action="${FEDERATED_PATHS.start(way.retry.slug)}">
<input type="hidden" name="uid" value="${way.uid}">
<button type="submit" id="federated-retry">Try ${way.retry.displayName} again</button>
</form>`
    : ''}
<p><a class="button secondary" href="/interaction/${way.uid}" id="federated-other-way">Sign in another way</a></p>
<form method="post" action="${FEDERATED_PATHS.cancel}">
<input type="hidden" name="uid" value="${way.uid}">
<button type="submit" class="secondary" id="federated-back">Back to ${way.clientName}</button>
</form>`;
}

export interface FederatedErrorPageModel {
  title: string;
  message: string;
  code: string;
  requestId?: string;
  way?: FederatedWayOn;
}

export function federatedErrorPage(model: FederatedErrorPageModel): string {
  return layout({
    title: model.title,
    body: html`<h1>${model.title}</h1>
<p class="error" role="alert">${model.message}</p>
<p class="muted">Error code: <code>${model.code}</code>${model.requestId ? html` · request ${model.requestId}` : ''}</p>
${wayOn(model.way)}`,
  });
}

/**
 * The end of a federated sign-in the upstream's MFA completed: the callback was the last hop of
 * the upstream's own form post, whose CSP form-action (a strict upstream, another Gatehouse) would
 * refuse further redirects to the app; this page starts a navigation of its own instead, by a
 * same-origin script (/static/form-post.js), with a Continue button without script.
 */
export function federatedContinuePage(model: { resumeUrl: string; clientName: string }): string {
  return layout({
    title: 'Signed in',
    scripts: ['/static/form-post.js'],
    body: html`<h1>Signed in</h1>
<p role="status">Taking you back to <strong>${model.clientName}</strong>…</p>
<form id="form-post" method="get" action="${model.resumeUrl}">
<button type="submit" id="federated-continue">Continue to ${model.clientName}</button>
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
}

/**
 * An upstream user with no link yet: link a Gatehouse account (proved by its password and second
 * factor on the next pages), or create a new one when the provider provisions.
 */
export function federatedChoicePage(model: FederatedChoicePageModel): string {
  const intro = model.matchedUsername
    ? html`<p>A Gatehouse account already uses the e-mail address of your ${model.providerName} account. To sign in with ${model.providerName} from now on, link the two: sign in to <strong class="account-name">${model.matchedUsername}</strong> once with its password and second factor.</p>`
    : html`<p role="alert" class="error">No Gatehouse account is linked to your ${model.providerName} account, and accounts for ${model.providerName} users are created by an administrator.</p>
<p>If you already have a Gatehouse account, sign in to it once with its password and second factor to link the two.</p>`;
  return layout({
    title: 'Link your account',
    body: html`<h1>Link your account</h1>
<p class="muted">to continue to <strong>${model.clientName}</strong></p>
${intro}
<form method="post" action="${FEDERATED_PATHS.choice}">
<input type="hidden" name="uid" value="${model.uid}">
<button type="submit" name="choice" value="link" id="federated-link" autofocus>Sign in to link my Gatehouse account</button>
${model.canCreate ? html`<button type="submit" name="choice" value="create" class="secondary" id="federated-create">Create a new account instead</button>` : ''}
</form>
<form method="post" action="${FEDERATED_PATHS.cancel}">
<input type="hidden" name="uid" value="${model.uid}">
<button type="submit" class="secondary" id="federated-back">Back to ${model.clientName}</button>
</form>`,
  });
}
