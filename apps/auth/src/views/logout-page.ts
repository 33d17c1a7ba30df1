import { html, raw } from '@gatehouse/html';
import { layout } from './layout.ts';
import { ACCOUNT_PATH } from '../clients/account-client.ts';

/**
 * RP-initiated logout proven by a valid `id_token_hint` of this session (oidc/logout-source.ts).
 * `form` is oidc-provider's hidden form (it carries the xsrf token); the same-origin script
 * submits it at once so the user is not asked twice.
 */
export function logoutPage(form: string, clientName: string | undefined, apps: readonly string[] = []): string {
  return layout({
    title: 'Signing out',
    scripts: ['/static/logout.js'],
    body: html`<h1>Signing out</h1>
<p>Signing you out of Gatehouse${clientName ? html` and <strong>${clientName}</strong>` : ''}…</p>
${appList(apps, 'Apps you are signed out of')}
${raw(form)}
<button type="submit" form="op.logoutForm" value="yes" name="logout" id="logout-confirm">Sign out</button>`,
  });
}

export interface LogoutConfirmationModel {
  /** The application that sent the user here, when it named itself (client_id). */
  clientName?: string;
  /** Who would be signed out. */
  username?: string;
  /** The names of the apps this browser's session signed in to (signed out with it). */
  apps?: readonly string[];
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
 * oidc-provider's form (`form`, with its xsrf token); "Stay signed in" goes to the account page.
 */
export function logoutConfirmationPage(form: string, model: LogoutConfirmationModel): string {
  return layout({
    title: 'Sign out?',
    body: html`<h1>Sign out of Gatehouse?</h1>
${model.username ? html`<p>You are signed in as <strong id="logout-username">${model.username}</strong>.</p>` : ''}
<p>${model.clientName ? html`<strong id="logout-client">${model.clientName}</strong> asks to sign you out.` : 'A page asked to sign you out.'} Signing out ends your Gatehouse session in this browser and the applications you signed in to with it.</p>
${appList(model.apps ?? [], 'Apps that will be signed out')}
${raw(form)}
<button type="submit" form="op.logoutForm" value="yes" name="logout" id="logout-confirm" autofocus>Sign out</button>
<a href="${ACCOUNT_PATH}" class="button secondary" id="logout-cancel">Stay signed in</a>`,
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
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * After the sign-out: the apps that were told by back-channel logout (an app that did not
 * confirm is listed apart: Gatehouse keeps trying to reach it), the way back to the app that
 * asked, and "Sign out everywhere" while other sessions of the account are live.
 */
export function signedOutPage(model: SignedOutModel): string {
  const confirmed = model.apps.filter((app) => app.confirmed).map((app) => app.name);
  const pending = model.apps.filter((app) => !app.confirmed).map((app) => app.name);
  const { everywhere, back } = model;
  return layout({
    title: 'Signed out',
    body: html`<h1>Signed out</h1>
<p role="status">You have been signed out of Gatehouse in this browser${confirmed.length + pending.length > 0 ? ', and of the apps below' : ''}.</p>
${model.endedElsewhere !== undefined ? html`<p class="notice" role="status" id="ended-elsewhere">Signed out everywhere: ${count(model.endedElsewhere, 'other session', 'other sessions')} ended. Every browser and device must sign in again.</p>` : ''}
${appList(confirmed, 'Signed out of these apps', 'signed-out-apps')}
${pending.length > 0 ? html`${appList(pending, 'Apps not reached yet', 'pending-apps')}
<p class="muted" id="pending-note">Gatehouse keeps trying to reach these apps; until one answers, close its window or sign out in it.</p>` : ''}
${back ? html`<a class="button" id="back-to-app" href="${back.uri}">Back to ${back.name}</a>` : ''}
${everywhere ? html`<section class="everywhere" aria-labelledby="everywhere-title">
<h2 id="everywhere-title">Still signed in elsewhere</h2>
<p id="everywhere-sessions">You are still signed in to Gatehouse in ${count(everywhere.sessions, 'other browser or device', 'other browsers or devices')}. Signing out everywhere ends ${everywhere.sessions === 1 ? 'it' : 'them all'} and the apps signed in with ${everywhere.sessions === 1 ? 'it' : 'them'}.</p>
<form method="post" action="${everywhere.action}"><input type="hidden" name="nonce" value="${everywhere.nonce}">
<button type="submit" class="secondary" id="sign-out-everywhere">Sign out everywhere</button></form>
</section>` : ''}`,
  });
}
