/**
 * Rows read ahead for the request being served, so that one SQL statement answers lookups
 * oidc-provider makes one after the other in the same request (every statement is a round trip
 * to PostgreSQL; bench/README.md, "Token path"). Rules:
 * - scoped to ONE request: the rows are kept per request object (oidc-provider's `Provider.ctx`,
 *   set only inside its own endpoints), in a WeakMap; another request, or code outside a
 *   request (CLI, admin API, tests), never sees them and reads the database;
 * - each row answers one lookup at most: take() removes it, so a second lookup of the same
 *   thing in the same request reads the database again;
 * - a row "not found" is kept too (value undefined): the lookup answers not found, as the
 *   database did for that same statement;
 * - forget(prefix) drops the rows under a prefix: the adapter forgets its own rows on every
 *   write, so a read after a write in the same request goes to the database;
 * - nothing here outlives the request: a removal, a disabled account, a policy change, a
 *   revocation or a new client secret acts at the very next request, as without it.
 */

export interface ReadAhead {
  /** True while a request is being served (rows put now are kept for it). */
  active(): boolean;
  /** Keeps `value` (undefined: known absent) for one lookup of `key` in this request. */
  put(key: string, value: unknown): void;
  /** The row read ahead for `key` in this request, removed; undefined when there is none. */
  take(key: string): { value: unknown } | undefined;
  /** Drops every row of this request whose key starts with `prefix`. */
  forget(prefix: string): void;
  /**
   * Work this request left to do before its response (not one-shot): the value under `key`, of
   * the request being served or of `request` (a middleware outside oidc-provider's endpoints).
   */
  pending(key: string, request?: object): unknown;
  /** Sets (undefined: clears) the pending work under `key` of the request being served or of `request`. */
  setPending(key: string, value: unknown, request?: object): void;
}

interface RequestRows {
  rows: Map<string, unknown>;
  pending: Map<string, unknown>;
}

/** `currentRequest` names the request being served (an object unique to it), or undefined. */
export function createReadAhead(currentRequest: () => object | undefined): ReadAhead {
  const byRequest = new WeakMap<object, RequestRows>();
  const rowsOf = (create: boolean, request: object | undefined = currentRequest()): RequestRows | undefined => {
    if (!request) return undefined;
    let rows = byRequest.get(request);
    if (!rows && create) {
      rows = { rows: new Map(), pending: new Map() };
      byRequest.set(request, rows);
    }
    return rows;
  };
  return {
    active: () => currentRequest() !== undefined,
    put(key, value) {
      rowsOf(true)?.rows.set(key, value);
    },
    take(key) {
      const rows = rowsOf(false)?.rows;
      if (!rows?.has(key)) return undefined;
      const value = rows.get(key);
      rows.delete(key);
      return { value };
    },
    forget(prefix) {
      const rows = rowsOf(false)?.rows;
      if (!rows) return;
      for (const key of [...rows.keys()]) if (key.startsWith(prefix)) rows.delete(key);
    },
    pending: (key, request) => rowsOf(false, request)?.pending.get(key),
    setPending(key, value, request) {
      const rows = rowsOf(value !== undefined, request);
      if (!rows) return;
      if (value === undefined) rows.pending.delete(key);
      else rows.pending.set(key, value);
    },
  };
}

/** Never active: every lookup reads the database (the CLI, and stores built without requests). */
export const NO_READ_AHEAD: ReadAhead = createReadAhead(() => undefined);

/** Where each kind of row read ahead is kept. */
export const READ_AHEAD_KEYS = {
  /** The scope policy rows (policy/scope-policy-store.ts), read with the request's client. */
  scopePolicies: 'scope_policies',
  /** A client row with its policy rows (clients/client-store.ts), read with a refresh request's token. */
  client: (id: string) => `clients:${id}`,
  /** An account row (accounts/account-store.ts), read with a refresh token. */
  account: (id: string) => `accounts:${id}`,
  /** Every row of the oidc-provider adapter starts with this (adapter.ts forgets them on a write). */
  oidcPrefix: 'oidc:',
  /** An oidc_payloads row by model and id or uid (adapter.ts). */
  oidc: (model: string, by: 'id' | 'uid', key: string) => `oidc:${model}:${by}:${key}`,
} as const;
