import { html } from '@gatehouse/html';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { layout } from './layout.ts';
import { stepError } from './step-error.ts';
import { passkeyStatus } from './passkey-status.ts';
import { PASSKEY_PATHS } from './passkey-paths.ts';
import { providerButtons, type FederatedProviderButton } from './federated-pages.ts';
import { clientLine, type ClientBranding } from './client-line.ts';

/** The scripts of a page offering passkeys: the vendored WebAuthn library, then ours. */
export const PASSKEY_SCRIPTS = ['/static/simplewebauthn-browser.js', '/static/passkey.js'];

export interface LoginPageModel {
  uid: string;
  /** The app the sign-in is for: its display name and logo. */
  client: ClientBranding;
  username?: string;
  error?: string;
  /** The error's stable code, named under the message (docs/spec.md §7). */
  errorCode?: string;
  /** The enabled upstream identity providers: one "Continue with …" button each. */
  providers?: readonly FederatedProviderButton[];
  /**
   * Some provider has home-realm domains: an e-mail of one of them goes to its provider, so the
   * password may be left empty.
   */
  homeRealm?: boolean;
  /** The user is linking an upstream account: the password and second factor prove the local one. */
  linking?: { providerName: string };
  /** "Forgot password?" (interactions/login/forgot-password-link.ts); absent when no mail can be sent. */
  forgotPasswordUrl?: string | undefined;
  /** The page's language (i18n/page-language.ts). */
  language?: PageLanguage;
}

/**
 * The password step, and passwordless sign-in with a passkey (a button, and the username
 * field's autofill where the browser supports conditional mediation). A page showing an error
 * does not start the autofill request again, so a refused passkey is never retried unasked.
 * Below them, one button per enabled upstream identity provider. While linking an upstream
 * account, the page says so and offers neither the passkey nor the providers: the password and
 * the second factor prove the local account.
 */
export function loginPage(model: LoginPageModel): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('login.title'),
    scripts: PASSKEY_SCRIPTS,
    language,
    languageReturn: `/interaction/${model.uid}`,
    body: html`<h1>${t('login.title')}</h1>
${clientLine(model.client, language)}
${stepError(model, language)}
${model.linking ? html`<p class="notice" role="status" id="linking-notice">${t('login.linking', { provider: model.linking.providerName })}</p>` : ''}
<form method="post" action="/login" autocomplete="on">
<input type="hidden" name="uid" value="${model.uid}">
<label for="username">${t('login.username')}</label>
<input id="username" name="username" autocomplete="username webauthn" required maxlength="64" value="${model.username ?? ''}" autofocus>
<label for="password">${t('login.password')}</label>
<input id="password" name="password" type="password" autocomplete="current-password"${model.homeRealm && !model.linking ? html` aria-describedby="home-realm-hint"` : html` required`} maxlength="1024">
${model.homeRealm && !model.linking ? html`<p class="muted" id="home-realm-hint">${t('login.homeRealmHint')}</p>` : ''}
<button type="submit">${t('login.continue')}</button>
</form>
${model.forgotPasswordUrl && !model.linking ? html`<p class="forgot-password"><a href="${model.forgotPasswordUrl}" id="forgot-password">${t('login.forgotPassword')}</a></p>` : ''}
${model.linking ? '' : html`<form method="post" action="${PASSKEY_PATHS.login}" class="alt-method" id="passkey-login" data-passkey="authenticate" data-options-url="${PASSKEY_PATHS.loginOptions}" data-conditional="${model.error ? 'false' : 'true'}">
<input type="hidden" name="uid" value="${model.uid}">
<input type="hidden" name="credential" value="">
<button type="button" class="secondary" id="passkey-sign-in" data-passkey-start hidden>${t('login.passkey')}</button>
${passkeyStatus(language)}
</form>
${providerButtons(model.uid, model.providers ?? [], language)}`}`,
  });
}
