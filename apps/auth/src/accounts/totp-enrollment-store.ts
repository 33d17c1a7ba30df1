/**
 * TOTP enrollments in progress and recovery codes not yet confirmed saved, per account. Rules:
 * - the pending secret is sealed at rest with the SecretBox (like the confirmed one) and kept
 *   until the enrollment is confirmed (clearSecret) or the user starts over (startSecret), so
 *   every view of an enrollment page shows the same key and QR code;
 * - pendingSecret() never makes a new secret behind the caller's back: secretOrStart() only does
 *   when none is pending, and startSecret() replaces one deliberately;
 * - recovery codes issued with an enrollment (or on the account page) are kept sealed until the
 *   user confirms they saved them (clearUnsavedCodes), then never shown again;
 * - removing the account removes its row (foreign key, ON DELETE CASCADE).
 */
import type { Kysely } from 'kysely';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { AuthSchema } from '../storage/schema.ts';

export interface TotpEnrollmentStore {
  /** The pending secret of the account (opened), if one is pending. */
  pendingSecret(accountId: string): Promise<string | undefined>;
  /** The pending secret, or `generate()`'s, stored now when none was pending. */
  secretOrStart(accountId: string, generate: () => string): Promise<string>;
  /** Replaces any pending secret with `secret` ("Start over"). */
  startSecret(accountId: string, secret: string): Promise<void>;
  /** The enrollment was confirmed or cancelled: no secret is pending. */
  clearSecret(accountId: string): Promise<void>;
  /** Recovery codes the user has not confirmed saving (opened), if any. */
  unsavedCodes(accountId: string): Promise<string[] | undefined>;
  /** Keeps `codes` until the user confirms they saved them. */
  keepUnsavedCodes(accountId: string, codes: readonly string[]): Promise<void>;
  /** The user saved them: they are never shown again. */
  clearUnsavedCodes(accountId: string): Promise<void>;
}

export function createTotpEnrollmentStore(db: Kysely<AuthSchema>, box: SecretBox, clock: () => number = Date.now): TotpEnrollmentStore {
  const row = (accountId: string) => db.selectFrom('totp_enrollments').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  const upsert = (accountId: string, values: { secret_sealed?: string | null; secret_created_at?: number | null; recovery_codes_sealed?: string | null; recovery_codes_issued_at?: number | null }) =>
    db
      .insertInto('totp_enrollments')
      .values({ account_id: accountId, secret_sealed: null, secret_created_at: null, recovery_codes_sealed: null, recovery_codes_issued_at: null, ...values })
      .onConflict((oc) => oc.column('account_id').doUpdateSet(values))
      .execute();
  return {
    async pendingSecret(accountId) {
      const found = await row(accountId);
      return found?.secret_sealed ? box.open(found.secret_sealed) : undefined;
    },

    async secretOrStart(accountId, generate) {
      const sealed = box.seal(generate());
      // Inserted, or set only where none is pending: two tabs racing keep one secret.
      await db
        .insertInto('totp_enrollments')
        .values({ account_id: accountId, secret_sealed: sealed, secret_created_at: clock(), recovery_codes_sealed: null, recovery_codes_issued_at: null })
        .onConflict((oc) =>
          oc
            .column('account_id')
            .doUpdateSet({ secret_sealed: sealed, secret_created_at: clock() })
            .where('totp_enrollments.secret_sealed', 'is', null),
        )
        .execute();
      return (await this.pendingSecret(accountId))!;
    },

    async startSecret(accountId, secret) {
      await upsert(accountId, { secret_sealed: box.seal(secret), secret_created_at: clock() });
    },

    async clearSecret(accountId) {
      await db.updateTable('totp_enrollments').set({ secret_sealed: null, secret_created_at: null }).where('account_id', '=', accountId).execute();
    },

    async unsavedCodes(accountId) {
      const found = await row(accountId);
      return found?.recovery_codes_sealed ? (JSON.parse(box.open(found.recovery_codes_sealed)) as string[]) : undefined;
    },

    async keepUnsavedCodes(accountId, codes) {
      await upsert(accountId, { recovery_codes_sealed: box.seal(JSON.stringify(codes)), recovery_codes_issued_at: clock() });
    },

    async clearUnsavedCodes(accountId) {
      await db.updateTable('totp_enrollments').set({ recovery_codes_sealed: null, recovery_codes_issued_at: null }).where('account_id', '=', accountId).execute();
    },
  };
}
