import { html, raw } from '@gatehouse/html';
import { layout } from './layout.ts';
import { ACCOUNT_PATH } from '../clients/account-client.ts';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';

/**
 * RP-initiated logout proven by a valid `id_token_hint` of this session (oidc/logout-source.ts).
 * `form` is oidc-provider's hidden form (it carries the xsrf token); the same-origin script
 * submits it at once so the user is not asked twice.
 */
export function logoutPage(form: string, clientName: string | undefined, apps: readonly string[] = [], language: PageLanguage = ENGLISH): string {
  const { t } = language;
  return layout({
    title: t('logout.signingOutTitle'),
    language,
    scripts: ['/static/logout.js'],
    body: html`<h1>${t('logout.signingOutTitle')}</h1>
<p>${clientName ? t('logout.signingYouOutOf', { client: html`<strong>${clientName}</strong>` }) : t('logout.signingYouOut')}</p>
${appList(apps, t('logout.appsSignedOut'))}
${raw(form)}
<button type="submit" form="op.logoutForm" value="yes" name="logout" id="logout-confirm">${t('logout.signOut')}</button>`,
  });
}

export interface LogoutConfirmationModel {
  /** The application that sent the user here, when it named itself (client_id). */
  clientName?: string;
  /** Who would be signed out. */
  username?: string;
  /** The names of the apps this browser's session signed in to (signed out with it). */
  apps?: readonly string[];
  /** "Sign out everywhere" as the second choice, with how many other sessions the account has; absent without a signed-in account. */
  everywhere?: { others: number };
  /** The page's language; English when absent. */
  language?: PageLanguage;
}

/** A titled list of app names in alphabetical order (never in the order deliveries happened to end), or nothing for none. */
function appList(apps: readonly string[], title: string, id = 'logout-apps') {
  if (apps.length === 0) return '';
  const sorted = [...apps].sort((a, b) => a.localeCompare(b, 'en'));
  return html`<h2>${title}</h2>
<ul class="devices" id="${id}">${sorted.map((name) => html`<li>${name}</li>`)}</ul>`;
}

/**
 * RP-initiated logout without a valid `id_token_hint`: anyone may have sent the browser here,
 * so the user decides (OpenID Connect RP-Initiated Logout 1.0 §2). No script: "Sign out" posts
 * oidc-provider's form (`form`, with its xsrf token); "Sign out everywhere" posts the same form
 * with `logout=everywhere` (oidc/logout-landing.ts then ends the account's other sessions too);
 * "Stay signed in" goes to the account page.
 */
export function logoutConfirmationPage(form: string, model: LogoutConfirmationModel): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('logout.confirmTitle'),
    language,
    body: html`<h1>${t('logout.confirmHeading')}</h1>
${model.username ? html`<p>${t('logout.signedInAs', { username: html`<strong id="logout-username">${model.username}</strong>` })}</p>` : ''}
<p>${model.clientName ? t('logout.clientAsks', { client: html`<strong id="logout-client">${model.clientName}</strong>` }) : t('logout.pageAsks')} ${t('logout.ends')}</p>
${appList(model.apps ?? [], t('logout.appsToSignOut'))}
${raw(form)}
<button type="submit" form="op.logoutForm" value="yes" name="logout" id="logout-confirm" autofocus>${t('logout.signOut')}</button>
${model.everywhere ? html`<p class="muted" id="logout-everywhere-choice">${t('logout.everywhereChoice', { n: model.everywhere.others })}</p>
<button type="submit" form="op.logoutForm" value="everywhere" name="logout" class="secondary" id="logout-everywhere">${t('logout.everywhere')}</button>` : ''}
<a href="${ACCOUNT_PATH}" class="button secondary" id="logout-cancel">${t('logout.stay')}</a>`,
  });
}

/** One app told of the sign-out: its name, and whether it confirmed at once. */
export interface SignedOutApp {
  name: string;
  confirmed: boolean;
}

export interface SignedOutModel {
  /** The apps told of the sign-out (back-channel logout), each confirmed or not yet. */
  apps: readonly SignedOutApp[];
  /** The app that asked for the sign-out, and its post-logout address. */
  back?: { name: string; uri: string };
  /** "Sign out everywhere", while the account has other live sessions. */
  everywhere?: { sessions: number; nonce: string; action: string };
  /** After "Sign out everywhere": how many other sessions it ended. */
  endedElsewhere?: number;
  /** The page's language; English when absent. */
  language?: PageLanguage;
}

/**
 * After the sign-out: the apps that were told by back-channel logout (an app that did not
 * confirm is listed apart: Gatehouse keeps trying to reach it), the way back to the app that
 * asked, and "Sign out everywhere" while other sessions of the account are live.
 */
export function signedOutPage(model: SignedOutModel): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  const confirmed = model.apps.filter((app) => app.confirmed).map((app) => app.name);
  const pending = model.apps.filter((app) => !app.confirmed).map((app) => app.name);
  const { everywhere, back } = model;
  return layout({
    title: t('logout.signedOutTitle'),
    language,
    body: html`<h1>${t('logout.signedOutTitle')}</h1>
<p role="status">${confirmed.length + pending.length > 0 ? t('logout.signedOutHereAndApps') : t('logout.signedOutHere')}</p>
${model.endedElsewhere !== undefined ? html`<p class="notice" role="status" id="ended-elsewhere">${t('logout.endedElsewhere', { n: model.endedElsewhere })}</p>` : ''}
${appList(confirmed, t('logout.signedOutApps'), 'signed-out-apps')}
${pending.length > 0 ? html`${appList(pending, t('logout.pendingApps'), 'pending-apps')}
<p class="muted" id="pending-note">${t('logout.pendingNote')}</p>` : ''}
${back ? html`<a class="button" id="back-to-app" href="${back.uri}">${t('way.backTo', { app: back.name })}</a>` : ''}
${everywhere ? html`<section class="everywhere" aria-labelledby="everywhere-title">
<h2 id="everywhere-title">${t('logout.elsewhereHeading')}</h2>
<p id="everywhere-sessions">${t('logout.elsewhere', { n: everywhere.sessions })}</p>
<form method="post" action="${everywhere.action}"><input type="hidden" name="nonce" value="${everywhere.nonce}">
<button type="submit" class="secondary" id="sign-out-everywhere">${t('logout.everywhere')}</button></form>
</section>` : ''}`,
  });
}
