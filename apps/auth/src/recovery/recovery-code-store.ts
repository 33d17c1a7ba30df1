/**
 * Recovery codes of each account. Rules:
 * - replace() swaps the whole set in one transaction: the old codes, used or not, stop working;
 * - consume() is one conditional UPDATE (used_at IS NULL), so a code works once, even when two
 *   requests race on two instances;
 * - only hashes are stored (recovery-codes.ts explains why SHA-256 suffices).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuthSchema } from '../storage/schema.ts';
import { generateRecoveryCodes, hashRecoveryCode, normalizeRecoveryCode } from './recovery-codes.ts';

export type RecoveryCodeResult = 'accepted' | 'used' | 'invalid';

export interface RecoveryCodeStore {
  /** Issues a fresh set for the account and returns the codes (the only time they exist in clear). */
  replace(accountId: string): Promise<string[]>;
  /** Makes `codes` (from {@link generateRecoveryCodes}, shown to the user) the account's set, replacing any other. */
  store(accountId: string, codes: readonly string[]): Promise<void>;
  /** Uses one code of the account. */
  consume(accountId: string, input: string): Promise<RecoveryCodeResult>;
  /** How many unused codes the account has. */
  remaining(accountId: string): Promise<number>;
  /** Deletes every code of the account (an operator's second-factor reset); how many there were. */
  removeAll(accountId: string): Promise<number>;
}

export function createRecoveryCodeStore(db: Kysely<AuthSchema>, clock: () => number = Date.now): RecoveryCodeStore {
  return {
    async replace(accountId) {
      const codes = generateRecoveryCodes();
      await this.store(accountId, codes);
      return codes;
    },

    async store(accountId, codes) {
      const now = clock();
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('recovery_codes').where('account_id', '=', accountId).execute();
        await trx
          .insertInto('recovery_codes')
          .values(codes.map((code) => ({ id: randomUUID(), account_id: accountId, code_hash: hashRecoveryCode(normalizeRecoveryCode(code)!), created_at: now, used_at: null })))
          .execute();
      });
    },

    async consume(accountId, input) {
      const normalized = normalizeRecoveryCode(input);
      if (!normalized) return 'invalid';
      const codeHash = hashRecoveryCode(normalized);
      const result = await db
        .updateTable('recovery_codes')
        .set({ used_at: clock() })
        .where('account_id', '=', accountId)
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) return 'accepted';
      const used = await db
        .selectFrom('recovery_codes')
        .select('id')
        .where('account_id', '=', accountId)
        .where('code_hash', '=', codeHash)
        .executeTakeFirst();
      return used ? 'used' : 'invalid';
    },

    async remaining(accountId) {
      const row = await db
        .selectFrom('recovery_codes')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', accountId)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async removeAll(accountId) {
      const result = await db.deleteFrom('recovery_codes').where('account_id', '=', accountId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
