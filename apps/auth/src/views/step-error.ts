/**
 * A refusal shown on a sign-in step's page: the message as an alert, its stable code named under
 * it (docs/spec.md §7); nothing without one.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import type { PageLanguage } from '../i18n/page-language.ts';

export function stepError(model: { error?: string | undefined; errorCode?: string | undefined }, language: PageLanguage): SafeHtml {
  return html`${model.error ? html`<p class="error" role="alert">${model.error}</p>` : ''}
${model.errorCode ? html`<p class="muted">${language.t('message.errorCode')} <code>${model.errorCode}</code></p>` : ''}`;
}
