/**
 * Storage of the access policy (scope-policy.ts evaluates it). Rules:
 * - one row per restricted API scope, naming the groups whose users may be granted it; no row
 *   means the scope is open to every user;
 * - a client's allowed API scopes live on its row (`clients.allowed_scopes`); null means any;
 * - the store checks nothing: scope-policy-service.ts validates what operators ask for.
 */
import type { Kysely } from 'kysely';
import { precompile } from '@gatehouse/db';
import type { AuthSchema } from '../storage/schema.ts';
import { reportingChange, type ClientChangeTracker } from '../clients/client-change-tracker.ts';

export interface ScopePolicy {
  scope: string;
  groups: string[];
  updatedAt: number;
}

export interface ScopePolicyStore {
  /** Every restricted scope, ordered by scope. */
  list(): Promise<ScopePolicy[]>;
  /** Creates or replaces the groups of a scope. */
  set(scope: string, groups: readonly string[]): Promise<void>;
  /** False when the scope had no policy. */
  clear(scope: string): Promise<boolean>;
  /** The client's allowed API scopes: null for any, undefined for an unknown client. */
  clientScopes(clientId: string): Promise<string[] | null | undefined>;
  /** Null allows any scope again. False for an unknown client. */
  setClientScopes(clientId: string, scopes: readonly string[] | null): Promise<boolean>;
}

/**
 * `changes`: told of every write, since client rows kept with the policy rows must not be reused
 * after one (clients/client-change-tracker.ts).
 */
export function createScopePolicyStore(db: Kysely<AuthSchema>, clock: () => number = Date.now, changes?: Pick<ClientChangeTracker, 'changed'>): ScopePolicyStore {
  // Both run at every token request (scope-policy.ts): compiled once.
  const listQuery = precompile(db, [], () => db.selectFrom('scope_policies').selectAll().orderBy('scope'));
  const clientScopesQuery = precompile(db, ['clientId'], (v) => db.selectFrom('clients').select('allowed_scopes').where('client_id', '=', v.clientId));
  const writing = <T>(write: () => Promise<T>) => reportingChange(changes, write);
  return {
    async list() {
      const { rows } = await listQuery({});
      return rows.map((r) => ({ scope: r.scope, groups: JSON.parse(r.groups) as string[], updatedAt: Number(r.updated_at) }));
    },
    async set(scope, groups) {
      const row = { scope, groups: JSON.stringify([...groups]), updated_at: clock() };
      await writing(() =>
        db
          .insertInto('scope_policies')
          .values(row)
          .onConflict((oc) => oc.column('scope').doUpdateSet({ groups: row.groups, updated_at: row.updated_at }))
          .execute(),
      );
    },
    async clear(scope) {
      const result = await writing(() => db.deleteFrom('scope_policies').where('scope', '=', scope).executeTakeFirst());
      return Number(result.numDeletedRows) > 0;
    },
    async clientScopes(clientId) {
      const row = (await clientScopesQuery({ clientId })).rows[0];
      if (!row) return undefined;
      return row.allowed_scopes == null ? null : (JSON.parse(row.allowed_scopes) as string[]);
    },
    async setClientScopes(clientId, scopes) {
      const result = await writing(() =>
        db
          .updateTable('clients')
          .set({ allowed_scopes: scopes === null ? null : JSON.stringify([...scopes]) })
          .where('client_id', '=', clientId)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
