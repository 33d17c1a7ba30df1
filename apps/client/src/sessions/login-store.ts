/**
 * Pending logins: what the callback needs to finish a login the browser started.
 * Rules:
 * - one row per authorization request, keyed by its `state`, holding the nonce, the PKCE
 *   verifier and the page to return to; nothing of it reaches the browser but `state`;
 * - a row is bound to the browser that started it (hash of its login cookie);
 * - `take` deletes the row as it reads it, so a `state` works once (a replay finds nothing);
 * - a row older than the login TTL reads as nothing.
 */
import type { Kysely } from 'kysely';
import type { ClientSchema } from '../storage/schema.ts';

export interface PendingLogin {
  state: string;
  /** Hash of the browser's login cookie. */
  browser: string;
  nonce: string;
  codeVerifier: string;
  returnTo: string;
  silent: boolean;
}

export interface LoginStore {
  save(login: PendingLogin, ttlSeconds: number): Promise<void>;
  take(state: string): Promise<PendingLogin | undefined>;
  purgeExpired(): Promise<number>;
  count(): Promise<number>;
}

export function createLoginStore(db: Kysely<ClientSchema>, clientId: string, clock: () => number): LoginStore {
  return {
    async save(login, ttlSeconds) {
      await db
        .insertInto('client_logins')
        .values({
          state: login.state,
          client_id: clientId,
          browser: login.browser,
          nonce: login.nonce,
          code_verifier: login.codeVerifier,
          return_to: login.returnTo,
          silent: login.silent ? 1 : 0,
          expires_at: clock() + ttlSeconds * 1000,
        })
        .execute();
    },
    async take(state) {
      const row = await db
        .deleteFrom('client_logins')
        .where('state', '=', state)
        .where('client_id', '=', clientId)
        .returningAll()
        .executeTakeFirst();
      if (!row || Number(row.expires_at) <= clock()) return undefined;
      return {
        state: row.state,
        browser: row.browser,
        nonce: row.nonce,
        codeVerifier: row.code_verifier,
        returnTo: row.return_to,
        silent: Number(row.silent) === 1,
      };
    },
    async purgeExpired() {
      const result = await db.deleteFrom('client_logins').where('expires_at', '<=', clock()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async count() {
      const row = await db
        .selectFrom('client_logins')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('client_id', '=', clientId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
