/**
 * Changes of e-mail address waiting for their one-time link. Rules:
 * - an account has at most one: a new request replaces the one before (its link stops working);
 * - only the SHA-256 of the link's token is kept, never the token;
 * - consume() answers the change once, by its token's hash, only before its expiry, and deletes it;
 * - removing the account removes its row (foreign key, ON DELETE CASCADE).
 */
import type { Kysely } from 'kysely';
import type { AuthSchema } from '../storage/schema.ts';

export interface EmailChange {
  accountId: string;
  newEmail: string;
}

export interface EmailChangeStore {
  /** Keeps the account's pending change, replacing any earlier one. */
  start(input: { accountId: string; newEmail: string; tokenHash: string; expiresAt: number }): Promise<void>;
  /** The change of `tokenHash` if it has not expired at `now`; it is deleted either way. */
  consume(tokenHash: string, now: number): Promise<EmailChange | undefined>;
}

export function createEmailChangeStore(db: Kysely<AuthSchema>, clock: () => number): EmailChangeStore {
  return {
    async start({ accountId, newEmail, tokenHash, expiresAt }) {
      await db
        .insertInto('email_changes')
        .values({ account_id: accountId, new_email: newEmail, token_hash: tokenHash, expires_at: expiresAt, created_at: clock() })
        .onConflict((oc) => oc.column('account_id').doUpdateSet({ new_email: newEmail, token_hash: tokenHash, expires_at: expiresAt, created_at: clock() }))
        .execute();
    },
    async consume(tokenHash, now) {
      const row = await db.deleteFrom('email_changes').where('token_hash', '=', tokenHash).returningAll().executeTakeFirst();
      if (!row || Number(row.expires_at) <= now) return undefined;
      return { accountId: row.account_id, newEmail: row.new_email };
    },
  };
}
