/**
 * Operations on the access policy, shared by `authctl scope ...` / `authctl client scopes ...`
 * (and later the admin API). Rules:
 * - only the configured API scopes (AUTH_API_SCOPES) can be restricted; a client may be allowed
 *   those and the admin scopes (admin-scopes.ts: their user rule is fixed, group `admins`);
 * - a policy names 1-32 groups, each 1-64 characters without spaces or commas (as user groups);
 * - a client's list names 1 or more API scopes; `null` (`--any`) lifts the limit;
 * - every failure is a ScopePolicyError with a stable code and a message naming the input.
 */
import type { ScopePolicy, ScopePolicyStore } from './scope-policy-store.ts';
import { CodedError } from '../errors/coded-error.ts';
import { isAdminScope } from './admin-scopes.ts';

export type ScopePolicyErrorCode = 'invalid_scope' | 'invalid_groups' | 'unknown_client' | 'no_policy';

export class ScopePolicyError extends CodedError<ScopePolicyErrorCode> {}

export interface ScopePolicyService {
  list(): Promise<ScopePolicy[]>;
  restrict(scope: string, groups: readonly string[]): Promise<ScopePolicy>;
  clear(scope: string): Promise<void>;
  /** The client's allowed API scopes (null: any). */
  clientScopes(clientId: string): Promise<string[] | null>;
  setClientScopes(clientId: string, scopes: readonly string[] | null): Promise<void>;
}

const MAX_GROUPS = 32;
/** The same shape as a user's group names (account-store.ts). */
const GROUP_PATTERN = /^[^\s,\p{Cc}]{1,64}$/u;

export function createScopePolicyService(deps: { store: ScopePolicyStore; apiScopes: readonly string[] }): ScopePolicyService {
  const known = new Set(deps.apiScopes);
  const checkScope = (scope: string) => {
    if (!known.has(scope)) {
      throw new ScopePolicyError('invalid_scope', `"${scope}" is not an API scope (the API scopes are: ${deps.apiScopes.join(', ')})`);
    }
  };
  const checkClientScope = (scope: string) => {
    if (!isAdminScope(scope)) checkScope(scope);
  };
  return {
    list: () => deps.store.list(),
    async restrict(scope, groups) {
      checkScope(scope);
      const unique = [...new Set(groups)];
      if (unique.length === 0) throw new ScopePolicyError('invalid_groups', 'name at least one group');
      if (unique.length > MAX_GROUPS) throw new ScopePolicyError('invalid_groups', `at most ${MAX_GROUPS} groups`);
      const bad = unique.find((g) => !GROUP_PATTERN.test(g));
      if (bad !== undefined) throw new ScopePolicyError('invalid_groups', `group "${bad}" must be 1-64 characters without spaces or commas`);
      await deps.store.set(scope, unique);
      const saved = (await deps.store.list()).find((p) => p.scope === scope);
      return saved!;
    },
    async clear(scope) {
      checkScope(scope);
      if (!(await deps.store.clear(scope))) throw new ScopePolicyError('no_policy', `scope "${scope}" has no policy`);
    },
    async clientScopes(clientId) {
      const scopes = await deps.store.clientScopes(clientId);
      if (scopes === undefined) throw new ScopePolicyError('unknown_client', `unknown client "${clientId}"`);
      return scopes;
    },
    async setClientScopes(clientId, scopes) {
      let value: string[] | null = null;
      if (scopes !== null) {
        value = [...new Set(scopes)];
        if (value.length === 0) throw new ScopePolicyError('invalid_scope', 'name at least one API scope (or allow any)');
        value.forEach(checkClientScope);
      }
      if (!(await deps.store.setClientScopes(clientId, value))) throw new ScopePolicyError('unknown_client', `unknown client "${clientId}"`);
    },
  };
}
