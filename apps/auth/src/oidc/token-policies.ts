/**
 * Who may introspect or revoke which token:
 * - introspection (RFC 7662): any authenticated confidential client (the API's own credentials
 *   are one) may introspect any token; a public client only the tokens issued to it;
 * - revocation (RFC 7009): only the client the token was issued to; another confidential client
 *   gets invalid_request, a public client is answered as if the token were unknown.
 * - refresh tokens and codes end with the SSO session (logout revokes the grants) unless the
 *   client asked for offline_access.
 */
import { errors, type Client, type KoaContextWithOIDC } from 'oidc-provider';

type TokenWithClient = { clientId?: string; scopes?: Set<string> };

export async function introspectionAllowed(_ctx: KoaContextWithOIDC, client: Client, token: TokenWithClient): Promise<boolean> {
  if (client.clientAuthMethod === 'none') return token.clientId === client.clientId;
  return true;
}

export async function revocationAllowed(_ctx: KoaContextWithOIDC, client: Client, token: TokenWithClient): Promise<boolean> {
  if (token.clientId === client.clientId) return true;
  if (client.clientAuthMethod === 'none') return false;
  throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
}

export async function expiresWithSession(_ctx: KoaContextWithOIDC, token: TokenWithClient): Promise<boolean> {
  return !token.scopes?.has('offline_access');
}
