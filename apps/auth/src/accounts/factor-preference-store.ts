/**
 * The second factor offered first at sign-in, per account. Rules:
 * - a factor is `totp`, `push` or `passkey` (recovery codes are never preferred: they come last);
 * - `preferred` is the user's choice on the account page, null for "the one I used last";
 * - `lastUsed` is the factor of the last second factor that passed, with when (the injected clock);
 * - a stored value that is not a factor reads as none;
 * - removing the account removes its row (foreign key, ON DELETE CASCADE).
 */
import type { Kysely } from 'kysely';
import type { AuthSchema } from '../storage/schema.ts';

export const PREFERABLE_FACTORS = ['totp', 'push', 'passkey'] as const;
export type PreferableFactor = (typeof PREFERABLE_FACTORS)[number];

export interface FactorPreference {
  preferred: PreferableFactor | null;
  lastUsed: PreferableFactor | null;
  lastUsedAt: number | null;
}

export interface FactorPreferenceStore {
  find(accountId: string): Promise<FactorPreference>;
  /** The user's choice; null: the one used last. */
  setPreferred(accountId: string, factor: PreferableFactor | null): Promise<void>;
  /** A second factor passed with `factor`. */
  recordUsed(accountId: string, factor: PreferableFactor): Promise<void>;
}

export const isPreferableFactor = (value: unknown): value is PreferableFactor => (PREFERABLE_FACTORS as readonly unknown[]).includes(value);

export function createFactorPreferenceStore(db: Kysely<AuthSchema>, clock: () => number = Date.now): FactorPreferenceStore {
  const upsert = (accountId: string, values: { preferred?: string | null; last_used?: string; last_used_at?: number }) =>
    db
      .insertInto('factor_preferences')
      .values({ account_id: accountId, preferred: null, last_used: null, last_used_at: null, ...values })
      .onConflict((oc) => oc.column('account_id').doUpdateSet(values))
      .execute();
  return {
    async find(accountId) {
      const row = await db.selectFrom('factor_preferences').selectAll().where('account_id', '=', accountId).executeTakeFirst();
      return {
        preferred: isPreferableFactor(row?.preferred) ? row.preferred : null,
        lastUsed: isPreferableFactor(row?.last_used) ? row.last_used : null,
        lastUsedAt: row?.last_used_at === null || row?.last_used_at === undefined ? null : Number(row.last_used_at),
      };
    },
    async setPreferred(accountId, factor) {
      await upsert(accountId, { preferred: factor });
    },
    async recordUsed(accountId, factor) {
      await upsert(accountId, { last_used: factor, last_used_at: clock() });
    },
  };
}
