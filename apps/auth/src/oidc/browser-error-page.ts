/**
 * The page of an error oidc-provider answers a browser on its browser routes (authorize, resume,
 * logout). Rules:
 * - an unknown application (`invalid_client`: no such client_id) is "Unknown application", in
 *   plain words, never the library's "client is invalid";
 * - a redirect URI the client did not register is "This sign-in link is not valid" (the browser is
 *   never sent to an unregistered address);
 * - an authorization request whose interaction is gone (the resume step, `SessionNotFound`:
 *   `invalid_request` "authorization request has expired" and its kin) is "This sign-in has expired";
 * - any other error keeps the library's description under "Sign-in error";
 * - every page offers a way on: the account page (which signs in to Gatehouse itself).
 */
import { messagePage } from '../views/message-page.ts';

const ACCOUNT_WAY = { label: 'Go to your account', href: '/account' };

export function browserErrorPage(out: { error?: unknown; error_description?: unknown }): string {
  const code = String(out.error);
  const description = typeof out.error_description === 'string' ? out.error_description : 'The request could not be completed.';
  if (code === 'invalid_client') {
    return messagePage(
      'Unknown application',
      'The application that sent you here is not registered with this sign-in service, so you cannot sign in to it from here. Go back to the application and try again, or tell its administrator.',
      { code, way: ACCOUNT_WAY },
    );
  }
  if (code === 'invalid_redirect_uri') {
    return messagePage('This sign-in link is not valid', 'The application asked to send you back to an address it has not registered, so the sign-in stopped here. Go back to the application and try again, or tell its administrator.', { code, way: ACCOUNT_WAY });
  }
  if (code === 'invalid_request' && /expired|not found|mismatch/.test(description)) {
    return messagePage('This sign-in has expired', 'This sign-in took too long or was finished in another tab. Nothing was signed in: go back to the application and sign in again.', { code, way: ACCOUNT_WAY });
  }
  return messagePage('Sign-in error', description, { code, way: ACCOUNT_WAY });
}
