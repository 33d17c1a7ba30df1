/**
 * Operator changes to the access policy: the one service behind `authctl scope` / `authctl client
 * scopes` and the admin console's scope-policy and client pages. Rules:
 * - the checks are policy/scope-policy-service.ts's (API scopes only, group names, a client's
 *   list); a refusal is its ScopePolicyError, and nothing is written or audited;
 * - every change takes the `actor` who makes it and writes one audit event naming it, after the
 *   change succeeded: `admin.scope.policy_set` (the groups as saved), `admin.scope.policy_cleared`,
 *   `admin.client.scopes_set` (space-separated, `*` when the limit was lifted);
 * - reads (list, clientScopes, apiScopes) are not audited.
 */
import type { Auditor } from '../audit/auditor.ts';
import type { ScopePolicy } from '../policy/scope-policy-store.ts';
import type { ScopePolicyService } from '../policy/scope-policy-service.ts';
import { actorFields, type Actor } from '../audit/actor.ts';

export interface ScopeAdmin {
  list(): Promise<ScopePolicy[]>;
  /** The API scopes a policy can restrict (AUTH_API_SCOPES), in configured order. */
  apiScopes(): readonly string[];
  restrict(actor: Actor, scope: string, groups: readonly string[]): Promise<ScopePolicy>;
  clear(actor: Actor, scope: string): Promise<void>;
  /** The client's allowed scopes (null: any API scope). */
  clientScopes(clientId: string): Promise<string[] | null>;
  setClientScopes(actor: Actor, clientId: string, scopes: readonly string[] | null): Promise<void>;
}

export interface ScopeAdminDeps {
  policies: ScopePolicyService;
  apiScopes: readonly string[];
  audit: Auditor;
}

export function createScopeAdmin(deps: ScopeAdminDeps): ScopeAdmin {
  const { policies, audit } = deps;
  return {
    list: () => policies.list(),
    apiScopes: () => deps.apiScopes,
    async restrict(actor, scope, groups) {
      const saved = await policies.restrict(scope, groups);
      audit.record('admin.scope.policy_set', { ...actorFields(actor), scope, groups: saved.groups.join(',') });
      return saved;
    },
    async clear(actor, scope) {
      await policies.clear(scope);
      audit.record('admin.scope.policy_cleared', { ...actorFields(actor), scope });
    },
    clientScopes: (clientId) => policies.clientScopes(clientId),
    async setClientScopes(actor, clientId, scopes) {
      await policies.setClientScopes(clientId, scopes);
      audit.record('admin.client.scopes_set', { ...actorFields(actor), client_id: clientId, scopes: scopes === null ? '*' : [...new Set(scopes)].join(' ') });
    },
  };
}
