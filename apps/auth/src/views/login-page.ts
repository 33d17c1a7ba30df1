import { html } from '@gatehouse/html';
import { layout } from './layout.ts';

export interface LoginPageModel {
  uid: string;
  clientName: string;
  username?: string;
  error?: string;
  /** The error's stable code, named under the message (docs/spec.md §7). */
  errorCode?: string;
}

/** The password step. */
export function loginPage(model: LoginPageModel): string {
  return layout({
    title: 'Sign in',
    body: html`<h1>Sign in</h1>
<p class="muted">to continue to <strong>${model.clientName}</strong></p>
${model.error ? html`<p class="error" role="alert">${model.error}</p>` : ''}
${model.errorCode ? html`<p class="muted">Error code: <code>${model.errorCode}</code></p>` : ''}
<form method="post" action="/login" autocomplete="on">
<input type="hidden" name="uid" value="${model.uid}">
<label for="username">Username</label>
<input id="username" name="username" autocomplete="username" required maxlength="64" value="${model.username ?? ''}" autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit">Continue</button>
</form>`,
  });
}
