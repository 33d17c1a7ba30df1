/**
 * The JSON text of items read at once on SQLite, kept while the database is unchanged. Rules:
 * - every entry belongs to one version of the database (`Database.readNowVersion`): the moment the
 *   version moves (anything committed, by this process or another one on the same file), every
 *   entry is dropped before the next lookup, so an answer from here is what a read would give;
 * - only items found are kept (a missing id is read again each time);
 * - bounded: at most `maxEntries` items and `maxChars` characters of JSON; past either, the oldest
 *   entries go first.
 * Why: the point read is the largest part of the API's item read that is not bare Koa's, and in a
 * server it costs several times what it costs in a tight loop (bench/README.md, "API read").
 * Reads far outnumber writes in an API, and a hot item is read many times between two writes.
 */

export interface ItemJsonCacheLimits {
  readonly maxEntries: number;
  readonly maxChars: number;
}

/** Enough for the hot items of every collection, a few MB at most. */
export const ITEM_JSON_CACHE_LIMITS: ItemJsonCacheLimits = { maxEntries: 10_000, maxChars: 4_000_000 };

export interface ItemJsonCache {
  /** The item's JSON: from the cache while the version holds, else from `read` (and kept). */
  get(collection: string, id: number, read: () => string | undefined): string | undefined;
}

export function itemJsonCache(version: () => number, limits: ItemJsonCacheLimits = ITEM_JSON_CACHE_LIMITS): ItemJsonCache {
  // One key per item: the collection, a NUL (never in a collection name), the id.
  let entries = new Map<string, string>();
  let chars = 0;
  let cachedAt = Number.NaN;

  function keep(key: string, json: string): void {
    if (json.length > limits.maxChars) return;
    entries.set(key, json);
    chars += json.length;
    for (const [oldest, value] of entries) {
      if (entries.size <= limits.maxEntries && chars <= limits.maxChars) break;
      entries.delete(oldest);
      chars -= value.length;
    }
  }

  return {
    get(collection, id, read) {
      const now = version();
      if (now !== cachedAt) {
        if (entries.size > 0) entries = new Map();
        chars = 0;
        cachedAt = now;
      }
      const key = `${collection}\u0000${id}`;
      const cached = entries.get(key);
      if (cached !== undefined) return cached;
      const json = read();
      if (json !== undefined) keep(key, json);
      return json;
    },
  };
}
