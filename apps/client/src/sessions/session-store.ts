/**
 * koa-session's external store on Kysely (SQLite and PostgreSQL).
 * Rules:
 * - rows are keyed by the SHA-256 of the cookie's session key, and scoped to this client id;
 * - a session ends at its absolute `expiresAt` (set at login) or the store's maxAge, whichever
 *   is first; an expired row reads as no session;
 * - expired rows are deleted by the periodic purge (app.ts `maintenance`, on a timer), never by a request;
 * - a row keeps its user's `sub` and the ID token's `sid` beside the data, so a back-channel
 *   logout ends every session of that `sid`, or of that `sub` when the token names no `sid`.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ClientSchema } from '../storage/schema.ts';

export interface SessionStore {
  get(key: string): Promise<Record<string, unknown> | undefined>;
  set(key: string, data: Record<string, unknown>, maxAgeMs: number): Promise<void>;
  destroy(key: string): Promise<void>;
  purgeExpired(): Promise<number>;
  /** Deletes this client's sessions of the SSO session `sid` (and user `sub` when given); returns how many. */
  endBySid(sid: string, sub: string | undefined): Promise<number>;
  /** Deletes every session of this client's user `sub`; returns how many. */
  endBySub(sub: string): Promise<number>;
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
      const user = data.user as { sub?: unknown } | undefined;
      const sub = typeof user?.sub === 'string' ? user.sub : null;
      const sid = typeof data.sid === 'string' ? data.sid : null;
      const row = { id: hashKey(key), client_id: clientId, data: JSON.stringify(data), expires_at: expiresAt, updated_at: now, sub, sid };
      await db
        .insertInto('client_sessions')
        .values(row)
        .onConflict((oc) => oc.column('id').doUpdateSet({ data: row.data, expires_at: row.expires_at, updated_at: row.updated_at, sub, sid }))
        .execute();
    },
    async destroy(key) {
      await db.deleteFrom('client_sessions').where('id', '=', hashKey(key)).where('client_id', '=', clientId).execute();
    },
    async endBySid(sid, sub) {
      let query = db.deleteFrom('client_sessions').where('client_id', '=', clientId).where('sid', '=', sid);
      if (sub !== undefined) query = query.where('sub', '=', sub);
      return Number((await query.executeTakeFirst()).numDeletedRows);
    },
    async endBySub(sub) {
      const result = await db.deleteFrom('client_sessions').where('client_id', '=', clientId).where('sub', '=', sub).executeTakeFirst();
      return Number(result.numDeletedRows);
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
