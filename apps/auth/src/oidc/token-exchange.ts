/**
 * OAuth 2.0 Token Exchange (RFC 8693) at the token endpoint, grant type
 * `urn:ietf:params:oauth:grant-type:token-exchange`: a resource server trades the user's access
 * token (the subject token) for one of another audience, to call that API on the user's behalf.
 * Checks, in this order:
 * - the client authenticated (oidc-provider) and is registered for the grant, else
 *   `unauthorized_client` (tokenExchangeAnswers rewrites oidc-provider's invalid_request);
 * - `subject_token` and `subject_token_type` are present and the type is
 *   `urn:ietf:params:oauth:token-type:access_token`; `requested_token_type`, when sent, is the same
 *   type; an `actor_token` or `actor_token_type` is refused, never ignored (RFC 8693 lets a server
 *   refuse actor tokens: the acting party is the authenticated client); at most
 *   one target: `audience` and `resource` name the same one when both are sent; a client that
 *   requires DPoP-bound tokens (dpop_bound_access_tokens) is refused, since this grant binds no
 *   key; else `invalid_request`;
 * - the subject token is an access token of this server, checked as introspection and the API
 *   check it (jwt-access-tokens.ts: signature with the server's keys, `typ`, `iss`, expiry,
 *   revocation of its jti, grant or subject, its client and user still there and enabled), and it
 *   has a user (a client_credentials token has none); else `invalid_grant`. A value that is not a
 *   JWT is looked up as an opaque token (AUTH_API_TOKEN_FORMAT=opaque, opaque-access-tokens.ts:
 *   found unexpired and not destroyed, its grant still there and its own), then checked the same way;
 * - the target (`audience` or `resource`; without one, the policy's only audience) is in the
 *   client's policy (clients/token-exchange-policy.ts) and is a resource server this server issues
 *   tokens for (the API, the admin API); else `invalid_target`;
 * - every requested scope was in the subject token, is in the client's policy, belongs to the
 *   target, and passes the access policy (policy/: the client's scope limit and the user's groups);
 *   without `scope`, the subject token's scopes that pass all four are granted, and none is
 *   `invalid_scope`, as is any requested scope refused;
 * - the new token is an RS256 JWT (RFC 9068) for the target: the user's `sub`, `client_id` the
 *   acting client, `act: { sub: <acting client> }` (RFC 8693 §4.1; the subject token's own `act`
 *   nested inside), the subject token's `grant_id` (revoking the user's grant revokes it too), and
 *   it never outlives the subject token; no refresh token is issued;
 * - the answer is `access_token`, `issued_token_type` (the access_token type), `token_type`
 *   Bearer, `expires_in` and `scope`; every exchange, issued or refused, is audited
 *   (`token.exchange.issued`, `token.exchange.refused`).
 */
import { errors, type Client, type KoaContextWithOIDC, type Provider } from 'oidc-provider';
import type { Context, Next } from 'koa';
import type { AuthConfig } from '../config/config.ts';
import type { ClientStore } from '../clients/client-store.ts';
import { TOKEN_EXCHANGE_GRANT } from '../clients/token-exchange-policy.ts';
import type { ScopeGate } from '../policy/scope-policy.ts';
import type { Auditor } from '../audit/auditor.ts';
import type { TokenExchangeRefusal } from '../audit/audit-events.ts';
import { ADMIN_SCOPES, adminAudience } from '../policy/admin-scopes.ts';
import { looksLikeJwt, type AccessTokenClaimsSeen, type JwtAccessTokens } from './jwt-access-tokens.ts';
import { USERINFO_SCOPES } from './resource-server.ts';

export { TOKEN_EXCHANGE_GRANT };

/** RFC 8693 §3: the token type of an access token. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

const PARAMETERS = ['audience', 'resource', 'scope', 'requested_token_type', 'subject_token', 'subject_token_type', 'actor_token', 'actor_token_type'];

export interface TokenExchangeDeps {
  config: Pick<AuthConfig, 'issuer' | 'api' | 'accessTokenTtl'>;
  tokens: Pick<JwtAccessTokens, 'decode' | 'isActive'>;
  /** An opaque access token's claims (opaque-access-tokens.ts); 'inactive' when its grant is gone; undefined when not found. */
  opaque: (token: string) => Promise<AccessTokenClaimsSeen | 'inactive' | undefined>;
  clients: Pick<ClientStore, 'find'>;
  gate: ScopeGate;
  audit: Auditor;
  clock: () => number;
}

/** The acting party of the tokens this module issues, kept for the JWT customizer (provider.ts). */
const actors = new WeakMap<object, Record<string, unknown>>();

/** The `act` claim of an exchanged token (RFC 8693 §4.1); nothing for any other token. */
export function actorClaims(token: object): { act?: Record<string, unknown> } {
  const act = actors.get(token);
  return act ? { act } : {};
}

const words = (value: unknown): string[] => (typeof value === 'string' ? value.split(' ').filter(Boolean) : []);

const oneValue = (value: unknown): string | undefined => (Array.isArray(value) ? (value as string[])[0] : typeof value === 'string' && value !== '' ? value : undefined);

function invalidGrant(description: string): Error {
  return new errors.CustomOIDCProviderError('invalid_grant', description);
}

/** The scopes each audience's tokens may carry: its own, and the OpenID scopes of a user's token. */
function audienceScopes(config: TokenExchangeDeps['config']): Map<string, ReadonlySet<string>> {
  return new Map([
    [config.api.audience, new Set([...USERINFO_SCOPES, ...config.api.scopes])],
    [adminAudience(config.issuer), new Set([...USERINFO_SCOPES, ...ADMIN_SCOPES])],
  ]);
}

/** The checked request parameters: the subject token and the one target named, if any. */
function readParameters(params: Record<string, unknown>): { subjectToken: string; target: string | undefined } {
  const subjectToken = params.subject_token;
  if (typeof subjectToken !== 'string' || subjectToken === '') throw new errors.InvalidRequest('missing required parameter subject_token');
  const subjectType = params.subject_token_type;
  if (typeof subjectType !== 'string' || subjectType === '') throw new errors.InvalidRequest('missing required parameter subject_token_type');
  if (subjectType !== ACCESS_TOKEN_TYPE) throw new errors.InvalidRequest(`unsupported subject_token_type: only ${ACCESS_TOKEN_TYPE} is accepted`);
  if (params.actor_token !== undefined || params.actor_token_type !== undefined) {
    throw new errors.InvalidRequest('actor_token is not supported: the acting party is the authenticated client');
  }
  const requested = params.requested_token_type;
  if (requested !== undefined && requested !== ACCESS_TOKEN_TYPE) throw new errors.InvalidRequest(`unsupported requested_token_type: only ${ACCESS_TOKEN_TYPE} is issued`);
  const audience = oneValue(params.audience);
  const resource = oneValue(params.resource);
  if (audience !== undefined && resource !== undefined && audience !== resource) {
    throw new errors.InvalidRequest('audience and resource must name the same target: one token has one audience');
  }
  return { subjectToken, target: audience ?? resource };
}

/** The subject token's claims when it is an active user token of this server; else invalid_grant. */
async function activeSubject(deps: TokenExchangeDeps, subjectToken: string): Promise<AccessTokenClaimsSeen> {
  const jwt = looksLikeJwt(subjectToken);
  const claims = jwt ? await deps.tokens.decode(subjectToken) : await deps.opaque(subjectToken);
  if (claims === 'inactive') throw invalidGrant('subject_token is revoked or no longer valid');
  if (!claims) {
    // An opaque token that is expired or revoked is gone, as is one that never existed.
    throw invalidGrant(jwt ? 'subject_token is not an access token issued by this server' : 'subject_token is not an active access token of this server (unknown, expired or revoked)');
  }
  if (claims.exp * 1000 <= deps.clock()) throw invalidGrant('subject_token is expired');
  if (!(await deps.tokens.isActive(claims))) throw invalidGrant('subject_token is revoked or no longer valid');
  if (claims.sub === claims.client_id) throw invalidGrant('subject_token has no user: only a user\'s token can be exchanged');
  return claims;
}

export function registerTokenExchange(provider: Provider, deps: TokenExchangeDeps): void {
  const scopesOf = audienceScopes(deps.config);

  provider.registerGrantType(
    TOKEN_EXCHANGE_GRANT,
    async (ctx) => {
      const client = ctx.oidc.client;
      const { subjectToken, target: requestedTarget } = readParameters(ctx.oidc.params as Record<string, unknown>);
      if ((client as { dpopBoundAccessTokens?: boolean }).dpopBoundAccessTokens) {
        throw new errors.InvalidRequest('token exchange issues no DPoP-bound token, and this client requires them (dpop_bound_access_tokens)');
      }
      const subject = await activeSubject(deps, subjectToken);

      const policy = (await deps.clients.find(client.clientId))?.tokenExchange;
      if (!policy) throw new errors.UnauthorizedClient('the client has no token-exchange policy');
      if (requestedTarget === undefined && policy.audiences.length !== 1) {
        throw new errors.InvalidTarget('audience is required: the client may exchange for several audiences');
      }
      const target = requestedTarget ?? policy.audiences[0]!;
      if (!policy.audiences.includes(target)) throw new errors.InvalidTarget(`the client may not exchange tokens for the audience ${target}`);
      const targetScopes = scopesOf.get(target);
      if (!targetScopes) throw new errors.InvalidTarget(`unknown resource ${target}`);

      const held = new Set(words(subject.scope));
      const allowed = new Set(policy.scopes);
      const requested = words(ctx.oidc.params?.scope);
      for (const scope of requested) {
        if (!held.has(scope)) throw new errors.InvalidScope(`scope ${scope} was not granted to the subject token`, scope);
        if (!allowed.has(scope)) throw new errors.InvalidScope(`scope ${scope} is not in the client's token-exchange policy`, scope);
        if (!targetScopes.has(scope)) throw new errors.InvalidScope(`scope ${scope} does not belong to the audience ${target}`, scope);
      }
      const candidates = requested.length ? [...new Set(requested)] : [...held].filter((s) => allowed.has(s) && targetScopes.has(s));
      const granted = await deps.gate.grantable(candidates, client.clientId, subject.sub);
      if (requested.length) {
        const refused = candidates.find((s) => !granted.includes(s));
        if (refused !== undefined) throw new errors.InvalidScope(`the access policy does not allow scope ${refused} to this client or user`, refused);
      }
      // OpenID scopes alone make no token for an API.
      if (!granted.some((s) => !(USERINFO_SCOPES as readonly string[]).includes(s))) {
        throw new errors.InvalidScope(`no scope of the subject token may be exchanged for the audience ${target}`, undefined as unknown as string);
      }

      const nowSeconds = Math.floor(deps.clock() / 1000);
      const expiresIn = Math.max(1, Math.min(deps.config.accessTokenTtl, subject.exp - nowSeconds));
      const scope = granted.join(' ');
      const token = new provider.AccessToken({
        client: client as Client,
        accountId: subject.sub,
        ...(subject.grant_id ? { grantId: subject.grant_id } : {}),
        gty: TOKEN_EXCHANGE_GRANT,
        scope,
        expiresIn,
        resourceServer: {
          identifier: () => target,
          audience: target,
          scope,
          accessTokenTTL: expiresIn,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        },
      } as unknown as ConstructorParameters<Provider['AccessToken']>[0]);
      const priorActor = subject.act;
      actors.set(token, { sub: client.clientId, ...(priorActor && typeof priorActor === 'object' ? { act: priorActor } : {}) });
      ctx.oidc.entity('AccessToken', token);
      const value = await token.save();

      deps.audit.record('token.exchange.issued', {
        client_id: client.clientId,
        account_id: subject.sub,
        subject_client_id: subject.client_id,
        audience: target,
        scope,
        jti: token.jti,
      });
      ctx.body = {
        access_token: value,
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: token.tokenType,
        expires_in: expiresIn,
        scope,
      };
    },
    PARAMETERS,
  );
}

type OidcContext = Context & { oidc?: KoaContextWithOIDC['oidc'] };

const REFUSALS: ReadonlySet<string> = new Set<TokenExchangeRefusal>(['invalid_request', 'invalid_client', 'unauthorized_client', 'invalid_grant', 'invalid_target', 'invalid_scope']);

/**
 * Around the token endpoint, for token-exchange requests: a client not registered for the grant
 * gets `unauthorized_client` (RFC 6749 §5.2) where oidc-provider answers invalid_request, and
 * every refusal is audited with its error code.
 */
export function tokenExchangeAnswers(deps: { audit: Auditor }) {
  return async function answerTokenExchange(ctx: OidcContext, next: Next): Promise<void> {
    await next();
    const oidc = ctx.oidc;
    if (oidc?.route !== 'token' || ctx.status < 400 || oidc.params?.grant_type !== TOKEN_EXCHANGE_GRANT) return;
    const body = ctx.body as { error?: unknown; error_description?: unknown } | undefined;
    if (!body || typeof body !== 'object' || typeof body.error !== 'string') return;
    if (body.error === 'invalid_request' && body.error_description === 'requested grant type is not allowed for this client') {
      ctx.body = { error: 'unauthorized_client', error_description: 'the client is not allowed the token-exchange grant' };
    }
    const error = (ctx.body as { error: string }).error;
    deps.audit.record('token.exchange.refused', {
      client_id: oidc.client?.clientId,
      error: (REFUSALS.has(error) ? error : 'other') as TokenExchangeRefusal,
    });
  };
}
