import { html } from '@gatehouse/html';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { layout } from './layout.ts';

/** "Forgot password?": the username or e-mail address the link goes to. */
export function forgotPasswordPage(model: { action: string; signInUrl: string; identifier?: string; error?: { code: string; message: string }; language?: PageLanguage }): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('forgot.title'),
    language,
    languageReturn: model.action,
    body: html`<h1>${t('forgot.title')}</h1>
<p>${t('forgot.intro')}</p>
${model.error ? html`<p class="error" role="alert" id="forgot-error">${model.error.message}</p>
<p class="muted">${t('message.errorCode')} <code>${model.error.code}</code></p>` : ''}
<form method="post" action="${model.action}">
<label for="identifier">${t('forgot.identifier')}</label>
<input id="identifier" name="identifier" autocomplete="username" required maxlength="254" value="${model.identifier ?? ''}" autofocus>
<button type="submit" id="send-link">${t('forgot.send')}</button>
</form>
<p><a href="${model.signInUrl}" id="back-to-sign-in">${t('forgot.backToSignIn')}</a></p>`,
  });
}

/** The one answer to a request, whether or not an account matched. */
export function forgotPasswordSentPage(model: { signInUrl: string; expiresInMinutes: number; language?: PageLanguage }): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('forgot.sentTitle'),
    language,
    body: html`<h1>${t('forgot.sentTitle')}</h1>
<p class="notice" role="status" id="forgot-sent">${t('forgot.sent', { minutes: model.expiresInMinutes })}</p>
<p class="muted">${t('forgot.noMail')}</p>
<p><a href="${model.signInUrl}" id="back-to-sign-in">${t('forgot.backToSignIn')}</a></p>`,
  });
}

/** Production without AUTH_SMTP_URL: no mail can go out, so no self-service recovery. */
export function recoveryUnavailablePage(model: { signInUrl: string; language?: PageLanguage }): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('forgot.unavailableTitle'),
    language,
    body: html`<h1>${t('forgot.unavailableTitle')}</h1>
<p class="error" role="alert">${t('forgot.unavailable')}</p>
<p class="muted">${t('message.errorCode')} <code>password_recovery_unavailable</code></p>
<p><a href="${model.signInUrl}" id="back-to-sign-in">${t('forgot.backToSignIn')}</a></p>`,
  });
}
