import { html } from '@gatehouse/html';
import { layout } from './layout.ts';

/** "Forgot password?": the username or e-mail address the link goes to. */
export function forgotPasswordPage(model: { action: string; signInUrl: string; identifier?: string; error?: { code: string; message: string } }): string {
  return layout({
    title: 'Reset your password',
    body: html`<h1>Reset your password</h1>
<p>Enter your username or e-mail address. We send a link to choose a new password to the e-mail address of your account.</p>
${model.error ? html`<p class="error" role="alert" id="forgot-error">${model.error.message}</p>
<p class="muted">Error code: <code>${model.error.code}</code></p>` : ''}
<form method="post" action="${model.action}">
<label for="identifier">Username or e-mail address</label>
<input id="identifier" name="identifier" autocomplete="username" required maxlength="254" value="${model.identifier ?? ''}" autofocus>
<button type="submit" id="send-link">Send the link</button>
</form>
<p><a href="${model.signInUrl}" id="back-to-sign-in">Back to sign in</a></p>`,
  });
}

/** The one answer to a request, whether or not an account matched. */
export function forgotPasswordSentPage(model: { signInUrl: string; expiresInMinutes: number }): string {
  return layout({
    title: 'Check your e-mail',
    body: html`<h1>Check your e-mail</h1>
<p class="notice" role="status" id="forgot-sent">If an account matches, we sent a link to choose a new password to its e-mail address. The link works once, for ${String(model.expiresInMinutes)} minutes.</p>
<p class="muted">No e-mail after a few minutes? Check your spam folder, or ask your administrator.</p>
<p><a href="${model.signInUrl}" id="back-to-sign-in">Back to sign in</a></p>`,
  });
}

/** Production without AUTH_SMTP_URL: no mail can go out, so no self-service recovery. */
export function recoveryUnavailablePage(model: { signInUrl: string }): string {
  return layout({
    title: 'Password recovery is not available',
    body: html`<h1>Password recovery is not available</h1>
<p class="error" role="alert">This server cannot send e-mail, so you cannot reset your password yourself here. Ask your administrator: they can send you a one-time link to choose a new password.</p>
<p class="muted">Error code: <code>password_recovery_unavailable</code></p>
<p><a href="${model.signInUrl}" id="back-to-sign-in">Back to sign in</a></p>`,
  });
}
