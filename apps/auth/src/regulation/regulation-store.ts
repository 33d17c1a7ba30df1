import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { precompile } from '@gatehouse/db';
import type { AuthSchema } from '../storage/schema.ts';

/** Failed login attempts per key (`account:<username>`, `device:<hash>`, `mfa:<username>`, `ip:<address>`), shared by every instance. */
export interface RegulationStore {
  recordFailure(key: string, atMs: number): Promise<void>;
  /** Times (epoch ms, ascending) of the key's failures at or after sinceMs. */
  failuresSince(key: string, sinceMs: number): Promise<number[]>;
  /** Deletes failures older than ms; returns how many. */
  purgeBefore(ms: number): Promise<number>;
  /** Deletes every failure of these keys (an operator's unlock); returns how many. */
  clear(keys: readonly string[]): Promise<number>;
  /**
   * Keys starting with one of `prefixes` that have at least `atLeast` failures at or after
   * `sinceMs`: the candidates for a lock (the admin console's dashboard asks the regulator which are).
   */
  keysWithFailures(prefixes: readonly string[], sinceMs: number, atLeast: number): Promise<string[]>;
}

export function createRegulationStore(db: Kysely<AuthSchema>): RegulationStore {
  // Run for each key of every sign-in step (regulation/regulator.ts): compiled once.
  const failuresSinceQuery = precompile(db, ['key', 'sinceMs'], (v) =>
    db.selectFrom('regulation_failures').select('at_ms').where('key', '=', v.key).where('at_ms', '>=', v.sinceMs).orderBy('at_ms'),
  );
  return {
    async recordFailure(key, atMs) {
      await db.insertInto('regulation_failures').values({ id: randomUUID(), key, at_ms: atMs }).execute();
    },

    async failuresSince(key, sinceMs) {
      const { rows } = await failuresSinceQuery({ key, sinceMs });
      return rows.map((r) => Number(r.at_ms));
    },

    async purgeBefore(ms) {
      const result = await db.deleteFrom('regulation_failures').where('at_ms', '<', ms).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async keysWithFailures(prefixes, sinceMs, atLeast) {
      if (prefixes.length === 0) return [];
      const rows = await db
        .selectFrom('regulation_failures')
        .select('key')
        .where('at_ms', '>=', sinceMs)
        // substr, not LIKE: exact bytes on both engines.
        .where((eb) => eb.or(prefixes.map((prefix) => eb(sql<string>`substr(key, 1, ${sql.lit(prefix.length)})`, '=', prefix))))
        .groupBy('key')
        .having((eb) => eb.fn.countAll(), '>=', atLeast)
        .orderBy('key')
        .execute();
      return rows.map((row) => row.key);
    },

    async clear(keys) {
      if (keys.length === 0) return 0;
      const result = await db.deleteFrom('regulation_failures').where('key', 'in', [...keys]).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
