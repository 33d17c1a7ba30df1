/**
 * The console's Signing keys page: every key in JWKS order with its state and age, and "rotate
 * now" (confirmed first). A read-only admin sees the table only. Never any key material.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import type { KeyInfo } from '../admin/key-admin.ts';
import { consoleAge, consoleDate } from '../views/console-dashboard-page.ts';

export const KEYS_PATH = '/admin/keys';

const STATE_TEXT: Readonly<Record<KeyInfo['state'], string>> = {
  active: 'signing',
  pending: 'pending (published, signs later)',
  retired: 'retired (published until its tokens expire)',
  expired: 'expired',
};

export function keysBody(model: { keys: KeyInfo[]; now: number; readOnly: boolean }): SafeHtml {
  const when = (ms: number | null) => (ms === null ? '—' : consoleDate(ms));
  const rows = model.keys.map(
    (k) => html`<tr data-kid="${k.kid}" data-state="${k.state}">
<th scope="row"><code>${k.kid}</code></th>
<td>${k.alg}</td>
<td>${STATE_TEXT[k.state] ?? k.state}</td>
<td>${consoleAge(model.now - k.createdAt)}</td>
<td>${when(k.activatesAt)}</td>
<td>${when(k.retiredAt)}</td>
<td>${when(k.expiresAt)}</td>
</tr>`,
  );
  return html`<h1>Signing keys</h1>
<p>Tokens and ID tokens are signed with the signing key; the others stay published in the JWKS while tokens they signed may still be checked.</p>
<div class="table-wrap" role="region" aria-label="Signing keys" tabindex="0"><table id="key-list">
<caption class="visually-hidden">Signing keys</caption>
<thead><tr><th scope="col">Key ID</th><th scope="col">Algorithm</th><th scope="col">State</th><th scope="col">Age</th><th scope="col">Signs from</th><th scope="col">Retired</th><th scope="col">Leaves the JWKS</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>
${
  model.readOnly
    ? html`<p class="muted" id="read-only-note">You have read-only access: you can see the keys but not rotate them.</p>`
    : html`<p><a class="button" href="${KEYS_PATH}/rotate" id="rotate-keys">Rotate now…</a></p>`
}`;
}
