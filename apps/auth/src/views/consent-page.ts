import { html } from '@gatehouse/html';
import type { ScopeDescription } from '../consent/scope-descriptions.ts';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { layout } from './layout.ts';
import { stepError } from './step-error.ts';
import { scopeText } from './scope-text.ts';

export interface ConsentPageModel {
  uid: string;
  clientName: string;
  /** The client's registered logo (RFC 7591 `logo_uri`); absent: no image. */
  logoUri?: string;
  /** Who is signed in (the account that would grant). */
  username: string;
  scopes: ScopeDescription[];
  /** A refusal of the step's form (interactions/step-refusal.ts). */
  error?: string;
  /** The error's stable code, named under the message (docs/spec.md §7). */
  errorCode?: string;
  /** The page's language (i18n/page-language.ts). */
  language?: PageLanguage;
}

/**
 * The consent step: what the application asks, in plain words, and Allow / Deny. One form, two
 * submit buttons (the pressed one sends `decision`), so it works without script and by keyboard:
 * Allow has the focus, Tab reaches Deny. A registered logo stands beside the name in a box of
 * fixed size (a slow or broken image does not move the page), and is fetched without a referrer
 * (the logo's host learns nothing of the interaction).
 */
export function consentPage(model: ConsentPageModel): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('consent.title'),
    language,
    languageReturn: `/interaction/${model.uid}`,
    body: html`<div class="client-brand">${
      model.logoUri
        ? html`<img id="consent-logo" class="client-logo" src="${model.logoUri}" alt="${t('client.logoAlt', { name: model.clientName })}" width="48" height="48" referrerpolicy="no-referrer">`
        : ''
    }<h1>${t('consent.heading', { client: html`<span id="consent-client">${model.clientName}</span>` })}</h1></div>
<p class="muted">${t('consent.signedInAs', { username: html`<strong id="consent-username">${model.username}</strong>` })}</p>
<p id="consent-intro">${t('consent.asking', { client: model.clientName })}</p>
<ul class="scopes" id="consent-scopes">${model.scopes.map(
      (s) => html`<li data-scope="${s.scope}">${scopeText(s, language)}${s.description === s.scope ? '' : html` <code>${s.scope}</code>`}</li>`,
    )}</ul>
${stepError(model, language)}
<form method="post" action="/consent">
<input type="hidden" name="uid" value="${model.uid}">
<button type="submit" name="decision" value="allow" id="consent-allow" autofocus>${t('consent.allow')}</button>
<button type="submit" name="decision" value="deny" class="secondary" id="consent-deny">${t('consent.deny')}</button>
</form>
<p class="muted">${t('consent.remembered', { accountLink: html`<a href="/account/apps">${t('consent.accountPage')}</a>` })}</p>`,
  });
}
