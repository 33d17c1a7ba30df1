/**
 * Access tokens are RFC 9068 JWTs for every request (RFC 8707 resource indicators):
 * - a request that names an API scope gets an access token for the API audience, even
 *   without a `resource` parameter; only the configured API scopes are granted to it, and a
 *   user's token also carries the OpenID scopes granted with it (`openid profile email groups`,
 *   as Okta's and Auth0's do), so userinfo accepts it too (jwt-userinfo.ts); the API accepts a
 *   token only for its own audience, whatever its scopes;
 * - a request with only OpenID scopes gets an at+jwt whose audience is this server's userinfo
 *   endpoint (`<issuer>/oauth2/v1/userinfo`), carrying those OpenID scopes: it is good for
 *   userinfo and nothing else, so the API (audience check) refuses it;
 * - client_credentials always gets a token for the API (or, for admin scopes, the admin API):
 *   without `scope` it is granted every API scope the client may have (RFC 6749 3.3's
 *   pre-defined default), or `invalid_scope` when that is none; a `scope` naming no API or admin
 *   scope is `invalid_scope` (a machine token has no user, so no OpenID scope);
 * - with AUTH_API_TOKEN_FORMAT=opaque the API token is an opaque reference token that the API
 *   checks through introspection; userinfo tokens then stay opaque too (no audience);
 * - a request that names admin scopes (policy/admin-scopes.ts) and no API scope gets a token for
 *   the admin API (`<issuer>/admin/v1`), always an RS256 JWT whatever AUTH_API_TOKEN_FORMAT
 *   says; a request mixing API and admin scopes without `resource` gets the API token (the admin
 *   scopes are left out): to get an admin token with such a request, name the admin audience in
 *   `resource`. One token never carries both audiences;
 * - the API's scopes offered to a request are those the access policy allows (policy/): the
 *   client's limit, and for a user's grant (code, refresh) the user's groups; oidc-provider
 *   grants no scope outside them, at authorization, code exchange, refresh and client_credentials.
 */
import { errors, type KoaContextWithOIDC, type ResourceServer } from 'oidc-provider';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import type { AuthConfig } from '../config/config.ts';
import type { KnownAccount, KnownClient, ScopeGate } from '../policy/scope-policy.ts';
import { ADMIN_SCOPES, adminAudience, isAdminScope } from '../policy/admin-scopes.ts';
import { ACCOUNT_CLIENT_ID } from '../clients/account-client.ts';

/** Scopes a userinfo access token may carry (offline_access belongs to the refresh token). */
export const USERINFO_SCOPES = ['openid', 'profile', 'email', 'groups'] as const;

/** The audience of access tokens issued for userinfo only. */
function userinfoAudience(config: Pick<AuthConfig, 'issuer'>): string {
  return `${config.issuer}${AUTH_ROUTES.userinfo}`;
}

/**
 * The account a token request is for: null for client_credentials (no user), undefined if unknown.
 * When the request has already read that account (oidc-provider's Account entity, found by
 * find-account.ts in this request: refresh, code exchange), its groups, so the policy does not
 * read it again.
 */
function grantAccount(ctx: KoaContextWithOIDC): string | KnownAccount | null | undefined {
  if (ctx.oidc.params?.grant_type === 'client_credentials') return null;
  const grant = ctx.oidc.entities?.Grant as { accountId?: string } | undefined;
  const accountId = grant?.accountId ?? ctx.oidc.session?.accountId;
  const found = ctx.oidc.entities?.Account as { accountId?: string; groups?: unknown } | undefined;
  if (accountId && found?.accountId === accountId && Array.isArray(found.groups)) return { groups: found.groups as string[] };
  return accountId;
}

/**
 * The client of a token request for the access policy: a registered client carries the scope limit
 * read with it (`api_scope_limit`, client-store.ts), so the policy does not read its row again; any
 * other client (the account page's static client) is looked up by id, as before.
 */
function policyClient(client: { clientId: string; api_scope_limit?: unknown }): string | KnownClient {
  if (typeof client.api_scope_limit !== 'string') return client.clientId;
  const limit = JSON.parse(client.api_scope_limit) as unknown;
  if (limit === null) return { clientId: client.clientId, allowedScopes: null };
  if (Array.isArray(limit) && limit.every((s) => typeof s === 'string')) return { clientId: client.clientId, allowedScopes: limit as string[] };
  return client.clientId;
}

/** The OpenID scopes an API token carries along (none for client_credentials: no user). */
const userScopes = (account: unknown): readonly string[] => (account === null ? [] : USERINFO_SCOPES);

export function resourceIndicators(config: AuthConfig, gate: ScopeGate) {
  const apiScopes = new Set(config.api.scopes);
  const jwt = config.api.tokenFormat === 'jwt';
  const userinfo = userinfoAudience(config);
  const admin = adminAudience(config.issuer);
  const requestsApiScope = (scope: unknown) =>
    typeof scope === 'string' && scope.split(' ').some((s) => apiScopes.has(s));
  const requestsAdminScope = (scope: unknown) => typeof scope === 'string' && scope.split(' ').some(isAdminScope);

  return {
    enabled: true,
    async defaultResource(ctx: KoaContextWithOIDC, client: { clientId?: string } | undefined, oneOf?: readonly string[]) {
      if (oneOf) return oneOf;
      // The account page's sign-in (response_type=none) never receives a token: no resource to grant.
      if (client?.clientId === ACCOUNT_CLIENT_ID) return undefined;
      if (requestsApiScope(ctx.oidc.params?.scope)) return config.api.audience;
      if (requestsAdminScope(ctx.oidc.params?.scope)) return admin;
      if (ctx.oidc.params?.grant_type === 'client_credentials') {
        const scope = ctx.oidc.params.scope;
        if (typeof scope === 'string' && scope.trim()) throw new errors.InvalidScope('client_credentials grants API scopes only', scope);
        const allowed = client?.clientId ? await gate.grantable([...apiScopes], policyClient(client as { clientId: string }), null) : [];
        // No scope to name in the error (oidc-provider leaves an undefined one out of the answer).
        if (!allowed.length) throw new errors.InvalidScope('no API scope may be granted to this client (authctl client scopes)', undefined as unknown as string);
        // The default scope (RFC 6749 3.3): the client_credentials grant reads it from the request.
        ctx.oidc.params.scope = allowed.join(' ');
        return config.api.audience;
      }
      if (!jwt) return undefined;
      return userinfo;
    },
    async useGrantedResource() {
      return true;
    },
    async getResourceServerInfo(ctx: KoaContextWithOIDC, resourceIndicator: string, client?: { clientId: string }): Promise<ResourceServer> {
      if (resourceIndicator === config.api.audience) {
        const account = grantAccount(ctx);
        const allowed = client ? await gate.grantable([...apiScopes], policyClient(client), account) : [];
        return {
          scope: [...userScopes(account), ...allowed].join(' '),
          audience: config.api.audience,
          accessTokenTTL: config.accessTokenTtl,
          accessTokenFormat: jwt ? 'jwt' : 'opaque',
          ...(jwt ? { jwt: { sign: { alg: 'RS256' as const } } } : {}),
        };
      }
      if (resourceIndicator === admin) {
        const account = grantAccount(ctx);
        const allowed = client ? await gate.grantable([...ADMIN_SCOPES], policyClient(client), account) : [];
        return {
          scope: [...userScopes(account), ...allowed].join(' '),
          audience: admin,
          accessTokenTTL: config.accessTokenTtl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' as const } },
        };
      }
      if (jwt && resourceIndicator === userinfo) {
        return {
          scope: USERINFO_SCOPES.join(' '),
          audience: userinfo,
          accessTokenTTL: config.accessTokenTtl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' as const } },
        };
      }
      throw new errors.InvalidTarget(`unknown resource ${resourceIndicator}`);
    },
  };
}
