/**
 * Rows one request read ahead for its own next lookups, by typed key: a kind (each with its row
 * type in the `Kinds` map) and the row's id. Rules:
 * - scoped to ONE request: the rows are kept per request object (an object unique to the request
 *   being served), in a WeakMap; another request, or code outside a request (CLI, admin API,
 *   tests), never sees them;
 * - each row answers one lookup at most: take() removes it, so a second lookup of the same row in
 *   the same request reads the database again;
 * - a row known absent is kept too (its value says so, e.g. undefined): the lookup answers not
 *   found, as the database did for the statement that read it;
 * - forget() drops every row of the given kinds: the owner of a kind forgets it on each write that
 *   may change those rows, so a read after a write in the same request goes to the database;
 * - nothing here outlives the request.
 */

export interface RequestRows<Kinds> {
  /** True while a request is being served (rows put now are kept for it). */
  active(): boolean;
  /** Keeps `value` for one lookup of the row `id` of `kind` in this request. */
  put<K extends keyof Kinds>(kind: K, id: string, value: Kinds[K]): void;
  /** The row kept in this request for `kind` and `id`, removed; undefined when there is none. */
  take<K extends keyof Kinds>(kind: K, id: string): { value: Kinds[K] } | undefined;
  /** Drops every row of these kinds kept in this request. */
  forget(kinds: readonly (keyof Kinds)[]): void;
}

/** `currentRequest` names the request being served (an object unique to it), or undefined. */
export function createRequestRows<Kinds>(currentRequest: () => object | undefined): RequestRows<Kinds> {
  const byRequest = new WeakMap<object, Map<keyof Kinds, Map<string, unknown>>>();
  const kindsOf = (create: boolean) => {
    const request = currentRequest();
    if (!request) return undefined;
    let kinds = byRequest.get(request);
    if (!kinds && create) {
      kinds = new Map();
      byRequest.set(request, kinds);
    }
    return kinds;
  };
  return {
    active: () => currentRequest() !== undefined,
    put(kind, id, value) {
      const kinds = kindsOf(true);
      if (!kinds) return;
      let rows = kinds.get(kind);
      if (!rows) kinds.set(kind, (rows = new Map()));
      rows.set(id, value);
    },
    take<K extends keyof Kinds>(kind: K, id: string) {
      const rows = kindsOf(false)?.get(kind);
      if (!rows?.has(id)) return undefined;
      const value = rows.get(id) as Kinds[K];
      rows.delete(id);
      return { value };
    },
    forget(kinds) {
      const kept = kindsOf(false);
      if (kept) for (const kind of kinds) kept.delete(kind);
    },
  };
}
