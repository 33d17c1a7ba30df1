/**
 * One-time password-reset tokens (the links of admin/password-reset.ts). Rules:
 * - a token is 32 random bytes (base64url, 43 characters); only its SHA-256 is stored, so the
 *   table cannot be replayed into links;
 * - one live token per account: issuing deletes the account's earlier ones (a new link
 *   invalidates the old);
 * - a token works until `expires_at` and once: consume() is one conditional UPDATE, so two
 *   concurrent submissions cannot both succeed;
 * - anything that is not a well-formed token is simply not found (no error, no lookup).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuthSchema } from '../storage/schema.ts';

export interface PasswordResetStore {
  /** A fresh token for the account, replacing any earlier one. */
  issue(accountId: string, ttlMs: number): Promise<{ token: string; expiresAt: number }>;
  /** The account of a live (unused, unexpired) token, without using it. */
  peek(token: string): Promise<string | undefined>;
  /** Uses a live token once; the account it was for, or undefined (unknown, used, expired). */
  consume(token: string): Promise<string | undefined>;
  /** Deletes tokens past their expiry; returns how many. */
  purgeExpired(): Promise<number>;
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

export function createPasswordResetStore(db: Kysely<AuthSchema>, clock: () => number): PasswordResetStore {
  async function live(token: string) {
    if (!TOKEN.test(token)) return undefined;
    return db
      .selectFrom('password_resets')
      .select('account_id')
      .where('token_hash', '=', hashOf(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', clock())
      .executeTakeFirst();
  }

  return {
    async issue(accountId, ttlMs) {
      const token = randomBytes(32).toString('base64url');
      const now = clock();
      const expiresAt = now + ttlMs;
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('password_resets').where('account_id', '=', accountId).execute();
        await trx.insertInto('password_resets').values({ token_hash: hashOf(token), account_id: accountId, created_at: now, expires_at: expiresAt, used_at: null }).execute();
      });
      return { token, expiresAt };
    },

    async peek(token) {
      return (await live(token))?.account_id;
    },

    async consume(token) {
      const row = await live(token);
      if (!row) return undefined;
      const now = clock();
      const result = await db
        .updateTable('password_resets')
        .set({ used_at: now })
        .where('token_hash', '=', hashOf(token))
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1 ? row.account_id : undefined;
    },

    async purgeExpired() {
      const result = await db.deleteFrom('password_resets').where('expires_at', '<=', clock()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
