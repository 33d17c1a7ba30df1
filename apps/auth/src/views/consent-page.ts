import { html } from '@gatehouse/html';
import type { ScopeDescription } from '../consent/scope-descriptions.ts';
import { layout } from './layout.ts';

export interface ConsentPageModel {
  uid: string;
  clientName: string;
  /** The client's registered logo (RFC 7591 `logo_uri`); absent: no image. */
  logoUri?: string;
  /** Who is signed in (the account that would grant). */
  username: string;
  scopes: ScopeDescription[];
}

/**
 * The consent step: what the application asks, in plain words, and Allow / Deny. One form, two
 * submit buttons (the pressed one sends `decision`), so it works without script and by keyboard:
 * Allow has the focus, Tab reaches Deny. A registered logo stands beside the name in a box of
 * fixed size (a slow or broken image does not move the page), and is fetched without a referrer
 * (the logo's host learns nothing of the interaction).
 */
export function consentPage(model: ConsentPageModel): string {
  return layout({
    title: 'Allow access',
    body: html`<div class="client-brand">${
      model.logoUri
        ? html`<img id="consent-logo" class="client-logo" src="${model.logoUri}" alt="${model.clientName} logo" width="48" height="48" referrerpolicy="no-referrer">`
        : ''
    }<h1>Allow <span id="consent-client">${model.clientName}</span> to access your account?</h1></div>
<p class="muted">Signed in as <strong id="consent-username">${model.username}</strong>.</p>
<p id="consent-intro">${model.clientName} is asking to:</p>
<ul class="scopes" id="consent-scopes">${model.scopes.map(
      (s) => html`<li data-scope="${s.scope}">${s.description}${s.description === s.scope ? '' : html` <code>${s.scope}</code>`}</li>`,
    )}</ul>
<form method="post" action="/consent">
<input type="hidden" name="uid" value="${model.uid}">
<button type="submit" name="decision" value="allow" id="consent-allow" autofocus>Allow</button>
<button type="submit" name="decision" value="deny" class="secondary" id="consent-deny">Deny</button>
</form>
<p class="muted">Allowing is remembered for this application. You can revoke it at any time under Connected apps on your <a href="/account#apps">account page</a>.</p>`,
  });
}
