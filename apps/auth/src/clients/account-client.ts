/**
 * How the account page signs a browser in: through Gatehouse's own login, as a built-in client,
 * the way Keycloak's account console is a client of its realm. Rules:
 * - the client `gatehouse-account` is static (provider configuration, never in the clients
 *   table, never listed or editable by authctl) and public;
 * - it asks for `response_type=none`: the login ends in a redirect to /account/callback that
 *   carries no code and no token, only the SSO session cookie oidc-provider set on the way;
 *   no grant type is allowed, so the token endpoint refuses it everything;
 * - its redirect URIs are the issuer's own /account/callback, which only sends the browser on
 *   to an account page (account/account-sign-in.ts; the page then reads the session like any other request), and /admin/callback,
 *   the admin console's (console/console-sign-in.ts), which does the same for /admin.
 */
import type { ClientMetadata } from 'oidc-provider';

export const ACCOUNT_CLIENT_ID = 'gatehouse-account';
export const ACCOUNT_PATH = '/account';
export const ACCOUNT_CALLBACK_PATH = '/account/callback';
/** The admin console signs in through this same client (console/console-sign-in.ts). */
export const CONSOLE_CALLBACK_PATH = '/admin/callback';

/** The static client's metadata (oidc-provider `clients` configuration). */
export function accountClientMetadata(issuer: string): ClientMetadata & { client_name: string } {
  return {
    client_id: ACCOUNT_CLIENT_ID,
    client_name: 'Your Gatehouse account',
    redirect_uris: [`${issuer}${ACCOUNT_CALLBACK_PATH}`, `${issuer}${CONSOLE_CALLBACK_PATH}`],
    response_types: ['none'],
    grant_types: [],
    token_endpoint_auth_method: 'none',
  };
}
