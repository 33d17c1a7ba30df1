/**
 * The page of an error oidc-provider answers a browser on its browser routes (authorize, resume,
 * logout). Rules:
 * - an unknown application (`invalid_client`: no such client_id) is "Unknown application", in
 *   plain words, never the library's "client is invalid";
 * - a redirect URI the client did not register is "This sign-in link is not valid" (the browser is
 *   never sent to an unregistered address);
 * - an authorization request whose interaction is gone (the resume step, `SessionNotFound`:
 *   `invalid_request` "authorization request has expired" and its kin) is "This sign-in has expired";
 * - any other error is "Sign-in error": on an English page with the library's description (as
 *   the library words it), on any other page with "The request could not be completed" in its
 *   language (the code shown below it names the error);
 * - every page offers a way on: the account page (which signs in to Gatehouse itself);
 * - the page is in the reader's language (i18n/page-language.ts).
 */
import type { WayOn } from '../errors/auth-error.ts';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { messagePage } from '../views/message-page.ts';

const ACCOUNT_WAY: WayOn = { label: 'Go to your account', href: '/account', says: { way: 'account' } };

export function browserErrorPage(out: { error?: unknown; error_description?: unknown }, language: PageLanguage = ENGLISH): string {
  const code = String(out.error);
  const description = typeof out.error_description === 'string' ? out.error_description : '';
  const page = (title: string, message: string) => messagePage(title, message, { code, way: ACCOUNT_WAY, language });
  if (code === 'invalid_client') return page(language.t('browserError.unknownApp'), language.t('browserError.unknownAppText'));
  if (code === 'invalid_redirect_uri') return page(language.t('browserError.badLink'), language.t('browserError.badLinkText'));
  if (code === 'invalid_request' && /expired|not found|mismatch/.test(description)) {
    return page(language.t('browserError.expired'), language.t('browserError.expiredText'));
  }
  return page(language.t('browserError.title'), language.locale === 'en' && description ? description : language.t('browserError.couldNotComplete'));
}
