/**
 * The account page's choice of the second factor offered first at sign-in (account/preferred-factor.ts):
 * a select of the account's own methods and "the one I used last", posted without script.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import type { PreferableFactor } from '../accounts/factor-preference-store.ts';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';

export const PREFERRED_FACTOR_PATH = '/account/preferred-factor';

/** Each factor's name in the choice (i18n catalogue `factor.<factor>`). */
const FACTOR_LABELS = { totp: 'factor.totp', push: 'factor.push', passkey: 'factor.passkey' } as const satisfies Record<PreferableFactor, string>;

export interface PreferredFactorView {
  /** The account's methods that can be offered first, in their fixed order. */
  available: PreferableFactor[];
  preferred: PreferableFactor | null;
  lastUsed: PreferableFactor | null;
}

export function preferredFactorSection(view: PreferredFactorView | undefined, language: PageLanguage = ENGLISH): SafeHtml | '' {
  if (!view) return '';
  const { t } = language;
  const lastUsed = view.lastUsed && view.available.includes(view.lastUsed) ? t('factor.now', { factor: t(FACTOR_LABELS[view.lastUsed]) }) : '';
  const option = (value: string, label: SafeHtml | string, selected: boolean) => html`<option value="${value}"${selected ? html` selected` : ''}>${label}</option>`;
  return html`<section id="preferred-factor"><h2>${t('factor.title')}</h2>
<form method="post" action="${PREFERRED_FACTOR_PATH}">
<label for="preferred-factor-choice">${t('factor.offerFirst')}</label>
<select id="preferred-factor-choice" name="factor">
${option('last_used', html`${t('factor.lastUsed')}${lastUsed}`, view.preferred === null)}
${view.available.map((factor) => option(factor, t(FACTOR_LABELS[factor]), view.preferred === factor))}
</select>
<button type="submit" class="secondary" id="save-preferred-factor">${t('factor.save')}</button>
</form>
<p class="muted">${t('factor.others')}</p></section>`;
}
