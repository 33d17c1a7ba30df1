/**
 * Access tokens for the API (RFC 8707 resource indicators):
 * - a request that names an API scope gets an access token for the API audience, even
 *   without a `resource` parameter; a request with only OpenID scopes gets a token for userinfo;
 * - the API token is an RFC 9068 JWT (`typ: at+jwt`, RS256) or, when configured, an opaque
 *   reference token that the API checks through introspection;
 * - only the configured API scopes are granted to the API audience.
 */
import type { KoaContextWithOIDC, ResourceServer } from 'oidc-provider';
import type { AuthConfig } from '../config/config.ts';

export function resourceIndicators(config: AuthConfig) {
  const apiScopes = new Set(config.api.scopes);
  const requestsApiScope = (scope: unknown) =>
    typeof scope === 'string' && scope.split(' ').some((s) => apiScopes.has(s));

  return {
    enabled: true,
    async defaultResource(ctx: KoaContextWithOIDC, _client: unknown, oneOf?: readonly string[]) {
      if (oneOf) return oneOf;
      return requestsApiScope(ctx.oidc.params?.scope) ? config.api.audience : undefined;
    },
    async useGrantedResource() {
      return true;
    },
    async getResourceServerInfo(_ctx: KoaContextWithOIDC, resourceIndicator: string): Promise<ResourceServer> {
      if (resourceIndicator !== config.api.audience) {
        const { errors } = await import('oidc-provider');
        throw new errors.InvalidTarget(`unknown resource ${resourceIndicator}`);
      }
      return {
        scope: [...apiScopes].join(' '),
        audience: config.api.audience,
        accessTokenTTL: config.accessTokenTtl,
        accessTokenFormat: config.api.tokenFormat === 'jwt' ? 'jwt' : 'opaque',
        ...(config.api.tokenFormat === 'jwt' ? { jwt: { sign: { alg: 'RS256' as const } } } : {}),
      };
    },
  };
}
