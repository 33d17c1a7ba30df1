/**
 * How the account pages sign a browser in, through the account page's built-in client
 * (clients/account-client.ts) and its redirect URI /account/callback. Rules:
 * - `state` is the account page to come back to; the callback only follows a path under
 *   /account (never another origin, never `//`, a `.` or `..` segment, a backslash or a control character, never the
 *   callback itself), anything else goes to /account;
 * - a fresh sign-in (fresh-sign-in.ts) also carries `max_age` and `prompt=login`, so the login
 *   (password and second factor) is asked for again whatever the age of the SSO session.
 */
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { ACCOUNT_CALLBACK_PATH, ACCOUNT_CLIENT_ID, ACCOUNT_PATH } from '../clients/account-client.ts';

/** The account path `candidate` names, or /account when it is not one. */
export function accountReturnPath(candidate: unknown): string {
  if (typeof candidate !== 'string' || candidate.length > 2000) return ACCOUNT_PATH;
  if (candidate !== ACCOUNT_PATH && !candidate.startsWith(`${ACCOUNT_PATH}/`) && !candidate.startsWith(`${ACCOUNT_PATH}?`)) return ACCOUNT_PATH;
  if (candidate.includes('//') || candidate.includes('\\') || /\/\.\.?(\/|\?|$)/.test(candidate) || /\p{Cc}/u.test(candidate) || candidate.startsWith(ACCOUNT_CALLBACK_PATH)) return ACCOUNT_PATH;
  return candidate;
}

/** The authorization request that signs the browser in (again, with `maxAge`) and comes back to `returnTo`. */
export function accountSignInUrl(issuer: string, options: { returnTo?: string; maxAge?: number } = {}): string {
  const url = new URL(AUTH_ROUTES.authorize, issuer);
  const params: Record<string, string> = {
    client_id: ACCOUNT_CLIENT_ID,
    response_type: 'none',
    scope: 'openid',
    redirect_uri: `${issuer}${ACCOUNT_CALLBACK_PATH}`,
    state: accountReturnPath(options.returnTo ?? ACCOUNT_PATH),
  };
  if (options.maxAge !== undefined) {
    params.max_age = String(options.maxAge);
    params.prompt = 'login';
  }
  url.search = new URLSearchParams(params).toString();
  return url.toString();
}
