import { html } from '@gatehouse/html';
import { layout } from './layout.ts';
import { PASSKEY_PATHS } from './passkey-paths.ts';

/** The scripts of a page offering passkeys: the vendored WebAuthn library, then ours. */
export const PASSKEY_SCRIPTS = ['/static/simplewebauthn-browser.js', '/static/passkey.js'];

export interface LoginPageModel {
  uid: string;
  clientName: string;
  username?: string;
  error?: string;
  /** The error's stable code, named under the message (docs/spec.md §7). */
  errorCode?: string;
}

/**
 * The password step, and passwordless sign-in with a passkey (a button, and the username
 * field's autofill where the browser supports conditional mediation). A page showing an error
 * does not start the autofill request again, so a refused passkey is never retried unasked.
 */
export function loginPage(model: LoginPageModel): string {
  return layout({
    title: 'Sign in',
    scripts: PASSKEY_SCRIPTS,
    body: html`<h1>Sign in</h1>
<p class="muted">to continue to <strong>${model.clientName}</strong></p>
${model.error ? html`<p class="error" role="alert">${model.error}</p>` : ''}
${model.errorCode ? html`<p class="muted">Error code: <code>${model.errorCode}</code></p>` : ''}
<form method="post" action="/login" autocomplete="on">
<input type="hidden" name="uid" value="${model.uid}">
<label for="username">Username</label>
<input id="username" name="username" autocomplete="username webauthn" required maxlength="64" value="${model.username ?? ''}" autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit">Continue</button>
</form>
<form method="post" action="${PASSKEY_PATHS.login}" class="alt-method" id="passkey-login" data-passkey="authenticate" data-options-url="${PASSKEY_PATHS.loginOptions}" data-conditional="${model.error ? 'false' : 'true'}">
<input type="hidden" name="uid" value="${model.uid}">
<input type="hidden" name="credential" value="">
<button type="button" class="secondary" id="passkey-sign-in" data-passkey-start hidden>Sign in with a passkey</button>
<p class="muted" role="status" data-passkey-status></p>
</form>`,
  });
}
