/**
 * The status line of a passkey form (/static/passkey.js writes into it). Rules:
 * - what the script says comes from this element's data attributes, in the page's language;
 * - a server's refusal is said by its error code (data-error-<code>) on a page in another language
 *   than English; an English page shows the server's own description, which is more specific.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import type { AuthErrorCode } from '../errors/auth-error.ts';
import type { PageLanguage } from '../i18n/page-language.ts';

/** The refusals of the passkey endpoints a page may see. */
const REFUSALS: readonly AuthErrorCode[] = [
  'passkey_challenge_invalid',
  'passkey_unknown',
  'passkey_invalid',
  'passkey_user_not_verified',
  'passkey_cloned',
  'passkey_already_registered',
  'account_disabled',
  'interaction_expired',
  'too_many_attempts',
  'login_required',
  'invalid_request',
];

export function passkeyStatus(language: PageLanguage): SafeHtml {
  const { t } = language;
  const refusals = language.locale === 'en' ? [] : REFUSALS.map((code) => html` data-error-${code.replace(/_/g, '-')}="${language.text(`error.${code}`)}"`);
  return html`<p class="muted" role="status" data-passkey-status data-unsupported="${t('passkey.unsupported')}" data-follow="${t('passkey.follow')}" data-signing-in="${t('passkey.signingIn')}" data-added="${t('passkey.added')}" data-already="${t('passkey.already')}" data-cancelled="${t('passkey.cancelled')}" data-refused="${t('passkey.refused')}" data-insecure="${t('passkey.insecure')}" data-failed="${t('passkey.failed')}"${refusals}></p>`;
}
