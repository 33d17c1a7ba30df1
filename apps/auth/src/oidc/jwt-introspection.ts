/**
 * Introspection (RFC 7662) and revocation (RFC 7009) of the JWT access tokens this server
 * issued. oidc-provider answers `unsupported_token_type` for structured tokens, after it has
 * authenticated the client; this middleware replaces exactly that answer. Rules:
 * - introspection: the token's own client, or the resource server's client for a token of its
 *   audience (token-policies.ts mayIntrospect); anyone else gets `{"active": false}`; the answer
 *   is jwt-access-tokens.ts's;
 * - revocation: only the client the token was issued to revokes it (the jti is recorded until
 *   `exp`); another confidential client gets invalid_request, as for opaque tokens
 *   (token-policies.ts); an unknown, foreign-to-a-public-client or expired token gets 200;
 * - a token that is not one of ours keeps the library's answer (inactive / 200).
 */
import type { Context, Next } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Auditor } from '../audit/auditor.ts';
import { looksLikeJwt, type JwtAccessTokens } from './jwt-access-tokens.ts';
import { mayIntrospect, type ResourceServerClient } from './token-policies.ts';

export interface JwtIntrospectionDeps {
  tokens: JwtAccessTokens;
  audit: Auditor;
  /** The resource servers' own clients, which may introspect the tokens of their audience. */
  resourceServers: readonly ResourceServerClient[];
}

type OidcContext = Context & { oidc?: KoaContextWithOIDC['oidc'] };

function isStructuredTokenRefusal(ctx: OidcContext): boolean {
  const body = ctx.body as { error?: unknown } | undefined;
  return ctx.status === 400 && body?.error === 'unsupported_token_type';
}

export function jwtIntrospection(deps: JwtIntrospectionDeps) {
  return async function introspectJwt(ctx: OidcContext, next: Next): Promise<void> {
    await next();
    const oidc = ctx.oidc;
    const route = oidc?.route;
    if ((route !== 'introspection' && route !== 'revocation') || !oidc?.client || !isStructuredTokenRefusal(ctx)) return;
    const token = oidc.params?.token;
    if (!looksLikeJwt(token)) return;
    const client = oidc.client;
    const claims = await deps.tokens.decode(token);
    const own = claims !== undefined && claims.client_id === client.clientId;
    const isPublic = client.clientAuthMethod === 'none';

    if (route === 'introspection') {
      ctx.status = 200;
      ctx.body = claims && mayIntrospect(client, { clientId: claims.client_id, aud: claims.aud }, deps.resourceServers) ? await deps.tokens.introspect(token) : { active: false };
      return;
    }

    if (claims && !own && !isPublic) {
      ctx.status = 400;
      ctx.body = { error: 'invalid_request', error_description: 'client is not authorized to revoke the presented token' };
      return;
    }
    if (claims && own) {
      await deps.tokens.revoke(claims);
      deps.audit.record('token.revoked', { token_type: 'access_token', client_id: client.clientId, jti: claims.jti });
    }
    ctx.status = 200;
    ctx.body = '';
  };
}
