/**
 * Who may introspect or revoke which token:
 * - introspection (RFC 7662): the client the token was issued to, and the resource server's own
 *   client for the tokens whose audience is that resource server (the API's client,
 *   AUTH_API_CLIENT_ID, for the tokens of AUTH_API_AUDIENCE; a confidential client only); anyone
 *   else is answered `{"active": false}`, as for an unknown token (RFC 7662 2.2), so a client
 *   learns nothing of another client's tokens;
 * - revocation (RFC 7009): only the client the token was issued to; another confidential client
 *   gets invalid_request, a public client is answered as if the token were unknown.
 * - refresh tokens and codes end with the SSO session (logout revokes the grants) unless the
 *   client asked for offline_access.
 */
import { errors, type Client, type KoaContextWithOIDC } from 'oidc-provider';
import type { AuthConfig } from '../config/config.ts';

type TokenWithClient = { clientId?: string; scopes?: Set<string> };

/** A resource server and the client it authenticates with at the introspection endpoint. */
export interface ResourceServerClient {
  audience: string;
  clientId: string;
}

/** The resource servers this configuration knows: the API, whose client is AUTH_API_CLIENT_ID. */
export function resourceServerClients(config: Pick<AuthConfig, 'api'>): ResourceServerClient[] {
  return [{ audience: config.api.audience, clientId: config.api.clientId }];
}

/** Whether `client` may learn about a token issued to `token.clientId` for the audience `token.aud`. */
export function mayIntrospect(
  client: { clientId: string; clientAuthMethod?: string },
  token: { clientId?: string; aud?: unknown },
  resourceServers: readonly ResourceServerClient[],
): boolean {
  if (token.clientId === client.clientId) return true;
  if (client.clientAuthMethod === 'none') return false;
  const audiences = Array.isArray(token.aud) ? token.aud : [token.aud];
  return resourceServers.some((server) => server.clientId === client.clientId && audiences.includes(server.audience));
}

/** oidc-provider's introspection allowedPolicy (opaque tokens; jwt-introspection.ts applies mayIntrospect to JWTs). */
export function introspectionAllowed(resourceServers: readonly ResourceServerClient[]) {
  return async (_ctx: KoaContextWithOIDC, client: Client, token: TokenWithClient & { aud?: unknown }): Promise<boolean> => mayIntrospect(client, token, resourceServers);
}

export async function revocationAllowed(_ctx: KoaContextWithOIDC, client: Client, token: TokenWithClient): Promise<boolean> {
  if (token.clientId === client.clientId) return true;
  if (client.clientAuthMethod === 'none') return false;
  throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
}

export async function expiresWithSession(_ctx: KoaContextWithOIDC, token: TokenWithClient): Promise<boolean> {
  return !token.scopes?.has('offline_access');
}
