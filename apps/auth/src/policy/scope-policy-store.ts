/**
 * Storage of the access policy (scope-policy.ts evaluates it). Rules:
 * - one row per restricted API scope, naming the groups whose users may be granted it; no row
 *   means the scope is open to every user;
 * - a client's allowed API scopes live on its row (`clients.allowed_scopes`); null means any;
 * - the store checks nothing: scope-policy-service.ts validates what operators ask for.
 */
import type { Kysely } from 'kysely';
import { precompile, type Engine } from '@gatehouse/db';
import type { AuthSchema } from '../storage/schema.ts';
import { NO_READ_AHEAD, READ_AHEAD_KEYS, type ReadAhead } from '../oidc/read-ahead.ts';
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

/** The column that carries the policy rows when they are read with a client (clients/client-store.ts). */
export const POLICY_ROWS_COLUMN = 'scope_policy_rows';

/** A scalar subquery: every policy row, as one JSON text of [scope, groups, updated_at] arrays. */
export function policyRowsSql(engine: Engine): string {
  return engine === 'postgres'
    ? "select coalesce(json_agg(json_build_array(scope, groups, updated_at)), '[]'::json)::text from scope_policies"
    : 'select json_group_array(json_array(scope, groups, updated_at)) from scope_policies';
}

/** A policy row as the client's read ahead carries it (clients/client-store.ts): [scope, groups JSON, updated_at]. */
function fromReadAhead(value: unknown): ScopePolicy[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const policies: ScopePolicy[] = [];
  for (const row of value as unknown[]) {
    if (!Array.isArray(row) || typeof row[0] !== 'string' || typeof row[1] !== 'string') return undefined;
    policies.push({ scope: row[0], groups: JSON.parse(row[1]) as string[], updatedAt: Number(row[2]) });
  }
  return policies.sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0));
}

/**
 * `readAhead`: inside an oidc-provider request, list() is answered once by the rows read with
 * the request's client (clients/client-store.ts), in the same request; otherwise it reads.
 * `changes`: told of every write, since the client rows kept with their policy rows must not be
 * reused after one (clients/client-change-tracker.ts).
 */
export function createScopePolicyStore(db: Kysely<AuthSchema>, clock: () => number = Date.now, readAhead: ReadAhead = NO_READ_AHEAD, changes?: Pick<ClientChangeTracker, 'changed'>): ScopePolicyStore {
  // Both run at every token request (scope-policy.ts): compiled once.
  const listQuery = precompile(db, [], () => db.selectFrom('scope_policies').selectAll().orderBy('scope'));
  const clientScopesQuery = precompile(db, ['clientId'], (v) => db.selectFrom('clients').select('allowed_scopes').where('client_id', '=', v.clientId));
  const writing = <T>(write: () => Promise<T>) => reportingChange(changes, write);
  return {
    async list() {
      const ahead = readAhead.take(READ_AHEAD_KEYS.scopePolicies);
      const policies = ahead && fromReadAhead(ahead.value);
      if (policies) return policies;
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
