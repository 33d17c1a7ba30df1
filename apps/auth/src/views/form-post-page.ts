import { html } from '@gatehouse/html';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { layout } from './layout.ts';

/** The id of the form that /static/form-post.js submits. */
export const FORM_POST_ID = 'form-post';

/**
 * The form_post response mode's page (OAuth 2.0 Form Post Response Mode): the answer for the
 * client as hidden fields, posted to its redirect URI by a same-origin script (the CSP allows no
 * inline script); without script, the Continue button posts it.
 */
export function formPostPage(action: string, fields: readonly (readonly [string, string])[], language: PageLanguage = ENGLISH): string {
  const { t } = language;
  return layout({
    title: t('formPost.title'),
    scripts: ['/static/form-post.js'],
    language,
    languageSwitch: false,
    body: html`<h1>${t('formPost.title')}</h1>
<form method="post" action="${action}" id="${FORM_POST_ID}">
${fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">\n`)}<p>${t('formPost.byHand')}</p>
<button type="submit">${t('formPost.continue')}</button>
</form>`,
  });
}
