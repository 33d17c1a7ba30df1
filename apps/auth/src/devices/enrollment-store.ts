/**
 * One-time device enrollment codes. Rules:
 * - a code is 128 random bits (base64url), shown once; only its SHA-256 is stored, so the
 *   lookup by hash needs no secret comparison of its own;
 * - it lives ENROLLMENT_TTL_MS and is consumed by one conditional UPDATE (used_at IS NULL and
 *   not expired), so two devices cannot enroll with the same code, even on two instances;
 * - issuing a new code for an account voids its earlier unused codes.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuthSchema } from '../storage/schema.ts';

export const ENROLLMENT_TTL_MS = 10 * 60_000;

export interface EnrollmentStore {
  /** A fresh code for the account; earlier unused codes stop working. */
  issue(accountId: string): Promise<{ code: string; expiresAt: number }>;
  /** The account the code was issued for, consuming it; undefined when unknown, used or expired. */
  consume(code: string): Promise<string | undefined>;
}

const hash = (code: string): string => createHash('sha256').update(code, 'utf8').digest('base64url');

export function createEnrollmentStore(db: Kysely<AuthSchema>, clock: () => number = Date.now): EnrollmentStore {
  return {
    async issue(accountId) {
      const now = clock();
      const code = randomBytes(16).toString('base64url');
      const expiresAt = now + ENROLLMENT_TTL_MS;
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('device_enrollments').where('account_id', '=', accountId).where('used_at', 'is', null).execute();
        await trx.deleteFrom('device_enrollments').where('expires_at', '<', now).execute();
        await trx.insertInto('device_enrollments').values({ code_hash: hash(code), account_id: accountId, created_at: now, expires_at: expiresAt, used_at: null }).execute();
      });
      return { code, expiresAt };
    },

    async consume(code) {
      if (!/^[\w-]{1,64}$/.test(code)) return undefined;
      const now = clock();
      const codeHash = hash(code);
      const result = await db
        .updateTable('device_enrollments')
        .set({ used_at: now })
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return undefined;
      const row = await db.selectFrom('device_enrollments').select('account_id').where('code_hash', '=', codeHash).executeTakeFirst();
      return row?.account_id;
    },
  };
}
