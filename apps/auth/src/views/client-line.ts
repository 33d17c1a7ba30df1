import { html, type SafeHtml } from '@gatehouse/html';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';

/** Who the sign-in is for: the client's display name and, when registered, its logo. */
export interface ClientBranding {
  name: string;
  /** The client's registered logo (RFC 7591 `logo_uri`, https); absent: no image. */
  logoUri?: string;
}

/**
 * "to continue to <display name>" under a sign-in page's heading (login, second factor), with the
 * client's logo beside it in a box of fixed size (a slow or broken image does not move the page),
 * fetched without a referrer. The alt text names the app, so the image is never a bare picture.
 */
export function clientLine(client: ClientBranding, language: PageLanguage = ENGLISH): SafeHtml {
  return html`<div class="client-brand client-line">${
    client.logoUri
      ? html`<img id="client-logo" class="client-logo" src="${client.logoUri}" alt="${language.t('client.logoAlt', { name: client.name })}" width="40" height="40" referrerpolicy="no-referrer">`
      : ''
  }<p class="muted">${language.t('client.continueTo', { name: client.name })}</p></div>`;
}
