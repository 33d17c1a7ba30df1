/**
 * koa-session's external store on Kysely (SQLite and PostgreSQL).
 * Rules:
 * - rows are keyed by the SHA-256 of the cookie's session key, and scoped to this client id;
 * - a session ends at its absolute `expiresAt` (set at login) or the store's maxAge, whichever
 *   is first; an expired row reads as no session;
 * - expired rows are deleted by the periodic purge (app.ts `maintenance`, on a timer), never by a request.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ClientSchema } from '../storage/schema.ts';

export interface SessionStore {
  get(key: string): Promise<Record<string, unknown> | undefined>;
  set(key: string, data: Record<string, unknown>, maxAgeMs: number): Promise<void>;
  destroy(key: string): Promise<void>;
  purgeExpired(): Promise<number>;
  /** Rows currently stored (tests). */
  count(): Promise<number>;
}

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('base64url');

export function createSessionStore(db: Kysely<ClientSchema>, clientId: string, clock: () => number): SessionStore {
  return {
    async get(key) {
      const row = await db
        .selectFrom('client_sessions')
        .select(['data', 'expires_at'])
        .where('id', '=', hashKey(key))
        .where('client_id', '=', clientId)
        .executeTakeFirst();
      if (!row || Number(row.expires_at) <= clock()) return undefined;
      return JSON.parse(row.data) as Record<string, unknown>;
    },
    async set(key, data, maxAgeMs) {
      const now = clock();
      const absolute = typeof data.expiresAt === 'number' ? data.expiresAt : Number.POSITIVE_INFINITY;
      const expiresAt = Math.min(now + maxAgeMs, absolute);
      const row = { id: hashKey(key), client_id: clientId, data: JSON.stringify(data), expires_at: expiresAt, updated_at: now };
      await db
        .insertInto('client_sessions')
        .values(row)
        .onConflict((oc) => oc.column('id').doUpdateSet({ data: row.data, expires_at: row.expires_at, updated_at: row.updated_at }))
        .execute();
    },
    async destroy(key) {
      await db.deleteFrom('client_sessions').where('id', '=', hashKey(key)).where('client_id', '=', clientId).execute();
    },
    async purgeExpired() {
      const result = await db.deleteFrom('client_sessions').where('expires_at', '<=', clock()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async count() {
      const row = await db
        .selectFrom('client_sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('client_id', '=', clientId)
        .where('expires_at', '>', clock())
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
