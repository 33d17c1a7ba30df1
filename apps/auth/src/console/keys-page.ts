/**
 * The console's Signing keys page: every key in JWKS order with its state and age, and "rotate
 * now" (confirmed first). A read-only admin sees the table only. Never any key material.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import type { KeyInfo } from '../admin/key-admin.ts';
import type { PageLanguage } from '../i18n/page-language.ts';
import { consoleAge, consoleTime } from '../views/console-time.ts';

export const KEYS_PATH = '/admin/keys';

export function keysBody(model: { language: PageLanguage; keys: KeyInfo[]; now: number; readOnly: boolean }): SafeHtml {
  const { language } = model;
  const { t } = language;
  const when = (ms: number | null) => (ms === null ? '—' : consoleTime(language, ms));
  const rows = model.keys.map(
    (k) => html`<tr data-kid="${k.kid}" data-state="${k.state}">
<th scope="row"><code>${k.kid}</code></th>
<td>${k.alg}</td>
<td>${t(`console.keys.stateLong.${k.state}`)}</td>
<td>${consoleAge(language, model.now - k.createdAt)}</td>
<td>${when(k.activatesAt)}</td>
<td>${when(k.retiredAt)}</td>
<td>${when(k.expiresAt)}</td>
</tr>`,
  );
  return html`<h1>${t('console.nav.keys')}</h1>
<p>${t('console.keys.intro')}</p>
<div class="table-wrap" role="region" aria-label="${t('console.nav.keys')}" tabindex="0"><table id="key-list">
<caption class="visually-hidden">${t('console.nav.keys')}</caption>
<thead><tr><th scope="col">${t('console.keys.kid')}</th><th scope="col">${t('console.keys.alg')}</th><th scope="col">${t('console.keys.state')}</th><th scope="col">${t('console.keys.age')}</th><th scope="col">${t('console.keys.signsFrom')}</th><th scope="col">${t('console.keys.retired')}</th><th scope="col">${t('console.keys.leaves')}</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>
${
  model.readOnly
    ? html`<p class="muted" id="read-only-note">${t('console.keys.readOnly')}</p>`
    : html`<p><a class="button" href="${KEYS_PATH}/rotate" id="rotate-keys">${t('console.keys.rotateStep')}</a></p>`
}`;
}
