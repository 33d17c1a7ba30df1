import { html } from '@gatehouse/html';
import { layout } from './layout.ts';

export interface SelectAccountPageModel {
  uid: string;
  clientName: string;
  /** The account of this browser's session. */
  username: string;
}

/**
 * The page's answer as the select-account step stores it for oidc-provider
 * (interactions/select-account.ts), read by the interaction policy (oidc/interaction-policy.ts).
 */
export interface SelectAccountResult {
  /** The user chose to sign in with another account than the session's. */
  another?: boolean;
}

/**
 * The account selection (prompt=select_account): continue as the session's account, or sign in
 * with another one. One form, two submit buttons (the pressed one sends `choice`), so it works
 * without script and by keyboard: "Continue as" has the focus, Tab reaches "Use another account".
 * A username is one word of up to 64 characters: it may break anywhere, so it never widens the
 * page at 390 px.
 */
export function selectAccountPage(model: SelectAccountPageModel): string {
  return layout({
    title: 'Choose an account',
    body: html`<h1>Choose an account</h1>
<p class="muted">to continue to <strong id="select-account-client">${model.clientName}</strong></p>
<form method="post" action="/select-account">
<input type="hidden" name="uid" value="${model.uid}">
<button type="submit" name="choice" value="continue" id="select-account-continue" autofocus>Continue as <span id="select-account-username" class="account-name">${model.username}</span></button>
<button type="submit" name="choice" value="another" class="secondary" id="select-account-another">Use another account</button>
</form>
<p class="muted">Signing in with another account signs <strong class="account-name">${model.username}</strong> out of this browser.</p>`,
  });
}
