/**
 * The access policy: which API scopes a grant may carry. Rules:
 * - a client limited to some API scopes (`authctl client scopes`) is granted none outside them;
 *   a client without a limit may request any API scope (the behaviour before the policy);
 * - for a user's grant (authorization code, refresh), a scope with a policy (`authctl scope
 *   policy`) is granted only if the user is in one of its groups; a scope without one is open;
 * - a client_credentials token has no user: only the client's limit applies;
 * - a user who cannot be identified is in no group (restricted scopes are left out), and an
 *   unknown client may request no API scope;
 * - a scope that is not allowed is silently left out of the grant, never an error: the token
 *   response `scope` and the JWT `scope` claim show what was granted (token-response.ts);
 * - admin scopes (admin-scopes.ts) are closed by default: the client must list each explicitly
 *   (a client without a limit gets none), and a user must be in group `admins`;
 * - OpenID scopes (openid, profile, email, groups, offline_access) are not the policy's: they
 *   pass unchanged (an API token carries those granted with it, oidc/resource-server.ts).
 */
import { OIDC_SCOPES } from '@gatehouse/contracts';
import type { AccountStore } from '../accounts/account-store.ts';
import { ADMIN_GROUP, isAdminScope } from './admin-scopes.ts';
import type { ScopePolicyStore } from './scope-policy-store.ts';

/** Who the grant is for: a user's groups, or no user (client_credentials). */
export type GrantSubject = { kind: 'user'; groups: readonly string[] } | { kind: 'client' };

export interface PolicyFacts {
  /** The client's allowed API scopes; null: any. */
  clientScopes: readonly string[] | null;
  /** Restricted scope → groups allowed to be granted it. */
  policies: ReadonlyMap<string, readonly string[]>;
}

/** The scopes of `requested` the policy grants, in their order. */
export function grantableScopes(requested: readonly string[], facts: PolicyFacts, subject: GrantSubject): string[] {
  const clientAllows = (s: string) => (facts.clientScopes === null ? !isAdminScope(s) : facts.clientScopes.includes(s));
  const userAllows = (s: string) => {
    if (subject.kind === 'client') return true;
    if (isAdminScope(s)) return subject.groups.includes(ADMIN_GROUP);
    const groups = facts.policies.get(s);
    return groups === undefined || groups.some((g) => subject.groups.includes(g));
  };
  return requested.filter((s) => OPENID_SCOPES.has(s) || (clientAllows(s) && userAllows(s)));
}

const OPENID_SCOPES: ReadonlySet<string> = new Set(OIDC_SCOPES);

/** A client the caller has just read in the same request: its API scope limit (null: any), without reading it again. */
export interface KnownClient {
  readonly clientId: string;
  readonly allowedScopes: readonly string[] | null;
}

/** An account the caller has just read in the same request: its groups, without reading it again. */
export interface KnownAccount {
  readonly groups: readonly string[];
}

export interface ScopeGate {
  /**
   * The API scopes of `requested` that `client` (its id, or the client the request already read)
   * may be granted, for the user `account` (its id, or the account the request already read), or
   * for no user when `account` is null (client_credentials).
   */
  grantable(requested: readonly string[], client: string | KnownClient, account: string | KnownAccount | null | undefined): Promise<string[]>;
}

export function createScopeGate(deps: { policies: ScopePolicyStore; accounts: Pick<AccountStore, 'findById'> }): ScopeGate {
  return {
    async grantable(requested, client, account) {
      if (requested.length === 0) return [];
      const [clientScopes, policies] = await Promise.all([typeof client === 'string' ? deps.policies.clientScopes(client) : client.allowedScopes, deps.policies.list()]);
      const facts: PolicyFacts = { clientScopes: clientScopes === undefined ? [] : clientScopes, policies: new Map(policies.map((p) => [p.scope, p.groups])) };
      if (account === null) return grantableScopes(requested, facts, { kind: 'client' });
      const groups = typeof account === 'object' ? account.groups : account ? (await deps.accounts.findById(account))?.groups : undefined;
      return grantableScopes(requested, facts, { kind: 'user', groups: groups ?? [] });
    },
  };
}
