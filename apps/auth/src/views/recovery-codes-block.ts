/**
 * Recovery codes and a TOTP key as people copy them. Rules:
 * - codes are one per line in a monospace list (one column, also at 390 px), with Copy, Download
 *   (a .txt file) and Print buttons; the buttons are hidden until /static/copy-codes.js runs (no
 *   inline script under the CSP), and the codes can always be selected by hand;
 * - a TOTP key is shown in groups of four characters (as authenticator apps accept it, spaces
 *   ignored), with a Copy button that copies it without the spaces.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';

/** The script behind the Copy, Download and Print buttons. */
export const COPY_CODES_SCRIPT = '/static/copy-codes.js';

/** "ABCDEFGH…" as "ABCD EFGH …". */
export function groupedKey(secret: string): string {
  return secret.match(/.{1,4}/g)?.join(' ') ?? secret;
}

export function totpKeyBlock(secret: string, id = 'totp-secret', language: PageLanguage = ENGLISH): SafeHtml {
  return html`<div class="key-row"><code id="${id}" class="totp-key" data-value="${secret}">${groupedKey(secret)}</code>
<button type="button" class="secondary small" data-copy="${id}" hidden>${language.t('codes.copyKey')}</button></div>`;
}

export function recoveryCodesBlock(codes: readonly string[], id = 'recovery-codes', language: PageLanguage = ENGLISH): SafeHtml {
  const { t } = language;
  return html`<ol id="${id}" class="code-list">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ol>
<div class="code-actions" data-codes="${id}">
<button type="button" class="secondary small" data-copy="${id}" hidden>${t('codes.copy')}</button>
<button type="button" class="secondary small" data-download="${id}" data-filename="gatehouse-recovery-codes.txt" hidden>${t('codes.download')}</button>
<button type="button" class="secondary small" data-print hidden>${t('codes.print')}</button>
</div>
<p class="muted" role="status" id="copy-status" data-copied="${t('codes.copied')}" data-copy-failed="${t('codes.copyFailed')}" data-downloaded="${t('codes.downloaded')}"></p>`;
}
