/**
 * The account page's choice of the second factor offered first at sign-in (account/preferred-factor.ts):
 * a select of the account's own methods and "the one I used last", posted without script.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import type { PreferableFactor } from '../accounts/factor-preference-store.ts';

export const PREFERRED_FACTOR_PATH = '/account/preferred-factor';

export const FACTOR_LABELS: Record<PreferableFactor, string> = {
  totp: 'Code from my authenticator app',
  push: 'Push to my authenticator device',
  passkey: 'Passkey or security key',
};

export interface PreferredFactorView {
  /** The account's methods that can be offered first, in their fixed order. */
  available: PreferableFactor[];
  preferred: PreferableFactor | null;
  lastUsed: PreferableFactor | null;
  /** A refused choice: the section shows its message and code. */
  error?: { code: string; message: string };
}

export function preferredFactorSection(view: PreferredFactorView | undefined): SafeHtml | '' {
  if (!view) return '';
  const lastUsed = view.lastUsed && view.available.includes(view.lastUsed) ? html` (now: ${FACTOR_LABELS[view.lastUsed].toLowerCase()})` : '';
  const option = (value: string, label: SafeHtml | string, selected: boolean) => html`<option value="${value}"${selected ? html` selected` : ''}>${label}</option>`;
  return html`<section id="preferred-factor"><h2>Sign-in method offered first</h2>
${view.error ? html`<p class="error" role="alert" id="preferred-factor-error">${view.error.message}</p>
<p class="muted">Error code: <code>${view.error.code}</code></p>` : ''}
<form method="post" action="${PREFERRED_FACTOR_PATH}">
<label for="preferred-factor-choice">After your password, offer first</label>
<select id="preferred-factor-choice" name="factor">
${option('last_used', html`The method I used last${lastUsed}`, view.preferred === null)}
${view.available.map((factor) => option(factor, FACTOR_LABELS[factor], view.preferred === factor))}
</select>
<button type="submit" class="secondary" id="save-preferred-factor">Save</button>
</form>
<p class="muted">Your other methods stay one step away under "Try another method", recovery codes last.</p></section>`;
}
