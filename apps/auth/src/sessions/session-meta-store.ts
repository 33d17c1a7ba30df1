/**
 * The browser and last use of each SSO session, for the account page's session list. Rules:
 * - rows are keyed by oidc-provider's session `uid`, which stays the same while the cookie's
 *   session id rotates (sign-in, re-authentication);
 * - touch() writes the browser label, the IP and the time of the latest request that showed
 *   the session (sign-in, SSO authorization, account page); the first touch is its creation;
 * - rows go with their session: remove() when Gatehouse ends sessions itself, purgeOrphans()
 *   (the periodic purge) for sessions that expired or were logged out.
 */
import type { Kysely } from 'kysely';
import type { AuthSchema } from '../storage/schema.ts';

export interface SessionMeta {
  sessionUid: string;
  accountId: string;
  browser: string;
  ip: string;
  createdAt: number;
  lastUsedAt: number;
}

export interface SessionMetaStore {
  touch(input: { sessionUid: string; accountId: string; browser: string; ip: string }): Promise<void>;
  /** The rows of these sessions (unknown uids are left out). */
  find(sessionUids: readonly string[]): Promise<SessionMeta[]>;
  remove(sessionUids: readonly string[]): Promise<void>;
  /** Deletes the rows whose session is no longer stored; returns how many. */
  purgeOrphans(): Promise<number>;
}

export function createSessionMetaStore(db: Kysely<AuthSchema>, clock: () => number): SessionMetaStore {
  return {
    async touch({ sessionUid, accountId, browser, ip }) {
      const now = clock();
      await db
        .insertInto('session_meta')
        .values({ session_uid: sessionUid, account_id: accountId, browser, ip, created_at: now, last_used_at: now })
        .onConflict((oc) => oc.column('session_uid').doUpdateSet({ account_id: accountId, browser, ip, last_used_at: now }))
        .execute();
    },

    async find(sessionUids) {
      if (sessionUids.length === 0) return [];
      const rows = await db.selectFrom('session_meta').selectAll().where('session_uid', 'in', [...sessionUids]).execute();
      return rows.map((row) => ({
        sessionUid: row.session_uid,
        accountId: row.account_id,
        browser: row.browser,
        ip: row.ip,
        createdAt: Number(row.created_at),
        lastUsedAt: Number(row.last_used_at),
      }));
    },

    async remove(sessionUids) {
      if (sessionUids.length === 0) return;
      await db.deleteFrom('session_meta').where('session_uid', 'in', [...sessionUids]).execute();
    },

    async purgeOrphans() {
      const result = await db
        .deleteFrom('session_meta')
        .where('session_uid', 'not in', (eb) => eb.selectFrom('oidc_payloads').select('uid').where('model', '=', 'Session').where('uid', 'is not', null).$narrowType<{ uid: string }>())
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
