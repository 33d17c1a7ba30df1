import { html } from '@gatehouse/html';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { layout } from './layout.ts';
import { stepError } from './step-error.ts';

export interface SelectAccountPageModel {
  uid: string;
  clientName: string;
  /** The account of this browser's session. */
  username: string;
  /** A refusal of the step's form (interactions/step-refusal.ts). */
  error?: string;
  /** The error's stable code, named under the message (docs/spec.md §7). */
  errorCode?: string;
  /** The page's language (i18n/page-language.ts). */
  language?: PageLanguage;
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
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('selectAccount.title'),
    language,
    languageReturn: `/interaction/${model.uid}`,
    body: html`<h1>${t('selectAccount.title')}</h1>
<p class="muted">${t('selectAccount.continueTo', { client: html`<strong id="select-account-client">${model.clientName}</strong>` })}</p>
${stepError(model, language)}
<form method="post" action="/select-account">
<input type="hidden" name="uid" value="${model.uid}">
<button type="submit" name="choice" value="continue" id="select-account-continue" autofocus>${t('selectAccount.continueAs', { username: html`<span id="select-account-username" class="account-name">${model.username}</span>` })}</button>
<button type="submit" name="choice" value="another" class="secondary" id="select-account-another">${t('selectAccount.another')}</button>
</form>
<p class="muted">${t('selectAccount.signsOut', { username: html`<strong class="account-name">${model.username}</strong>` })}</p>`,
  });
}
