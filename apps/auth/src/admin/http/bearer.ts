/**
 * Who calls the admin API (RFC 6750 bearer tokens, RFC 9068 JWT access tokens). Rules:
 * - the token comes from `Authorization: Bearer <token>` only (never the query or a form body);
 * - it must be one of this server's JWT access tokens (oidc/jwt-access-tokens.ts: signature with
 *   our keys, `typ` at+jwt, issuer), for the admin audience (`<issuer>/admin/v1`), and active
 *   (not expired or revoked, its client still registered, its user still there and enabled);
 * - no token: 401 `invalid_token` with `WWW-Authenticate: Bearer realm="<audience>"` (RFC 6750
 *   §3.1: no error attribute when the request had no credentials); a bad token: the same with
 *   `error="invalid_token"`;
 * - the actor: a client_credentials token (subject = its client) acts as `{kind:'client'}`, a
 *   user's token as `{kind:'account'}`;
 * - a token counts only the admin scopes its holder may still be granted (policy/admin-scopes.ts):
 *   those its client still lists, and for a user's token only while the user is in group
 *   `admins`; taking a scope from a client or a user out of `admins` takes effect at once, not
 *   when the token expires;
 * - a route's scope missing from the token: 403 `insufficient_scope` naming it in
 *   WWW-Authenticate (`scope="..."`).
 */
import type { Context } from 'koa';
import type { AccountStore } from '../../accounts/account-store.ts';
import { ScopePolicyError, type ScopePolicyService } from '../../policy/scope-policy-service.ts';
import { ADMIN_GROUP, isAdminScope, type AdminScope } from '../../policy/admin-scopes.ts';
import type { Actor } from '../../audit/actor.ts';
import { AdminProblem } from './problem.ts';

export interface Caller {
  actor: Actor;
  scopes: ReadonlySet<AdminScope>;
}

/** The claims the admin API reads from an access token. */
export interface AdminTokenClaims {
  sub: string;
  client_id: string;
  aud?: string | string[];
  scope?: string;
}

/**
 * Checks this server's access tokens: the admin API owns the shape, the protocol layer's
 * verifier (oidc/jwt-access-tokens.ts) fits it and composition hands it in. `isActive` is given
 * back the claims `decode` returned.
 */
export interface AccessTokenVerifier {
  /** The claims when the token is one of ours (signature, typ, iss), expired or not; else undefined. */
  decode(token: string): Promise<AdminTokenClaims | undefined>;
  /** Whether the decoded claims describe an active token right now (not expired, not revoked). */
  isActive(claims: AdminTokenClaims): Promise<boolean>;
}

export interface BearerDeps {
  tokens: AccessTokenVerifier;
  accounts: Pick<AccountStore, 'findById'>;
  /** The clients' allowed scopes (policy/). */
  policies: Pick<ScopePolicyService, 'clientScopes'>;
  /** The admin API's audience, also the realm. */
  audience: string;
}

export function createBearerCheck(deps: BearerDeps) {
  const realm = `realm="${deps.audience}"`;
  const invalid = (detail: string, hadToken: boolean) =>
    new AdminProblem(401, 'invalid_token', detail, {
      headers: { 'WWW-Authenticate': hadToken ? `Bearer ${realm}, error="invalid_token"` : `Bearer ${realm}` },
    });

  /** The client's list now; none for a client removed meanwhile. */
  const clientScopes = (clientId: string) =>
    deps.policies.clientScopes(clientId).catch((error: unknown) => {
      if (error instanceof ScopePolicyError) return [];
      throw error;
    });

  return {
    /** The caller of the request; throws the 401 problem. */
    async authenticate(ctx: Context): Promise<Caller> {
      const header = ctx.get('authorization');
      if (!header) throw invalid('An access token for the admin API is required (Authorization: Bearer).', false);
      const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(header);
      if (!match) throw invalid('The Authorization header is not a bearer token.', true);
      const claims = await deps.tokens.decode(match[1]!);
      if (!claims) throw invalid('The access token is not valid.', true);
      const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      if (!audiences.includes(deps.audience)) throw invalid('The access token is not for the admin API.', true);
      if (!(await deps.tokens.isActive(claims))) throw invalid('The access token is expired or revoked.', true);
      const listed = (await clientScopes(claims.client_id)) ?? [];
      const granted = (claims.scope ?? '').split(' ').filter((scope): scope is AdminScope => isAdminScope(scope) && listed.includes(scope));
      if (claims.sub === claims.client_id) return { actor: { kind: 'client', clientId: claims.client_id }, scopes: new Set(granted) };
      const account = await deps.accounts.findById(claims.sub);
      const admin = account?.groups.includes(ADMIN_GROUP) ?? false;
      return { actor: { kind: 'account', accountId: claims.sub }, scopes: new Set(admin ? granted : []) };
    },

    /** Throws the 403 problem when the caller lacks `scope`. */
    requireScope(caller: Caller, scope: AdminScope): void {
      if (caller.scopes.has(scope)) return;
      throw new AdminProblem(403, 'insufficient_scope', `This request needs the scope ${scope}.`, {
        headers: { 'WWW-Authenticate': `Bearer ${realm}, error="insufficient_scope", scope="${scope}"` },
      });
    },
  };
}

export type BearerCheck = ReturnType<typeof createBearerCheck>;
