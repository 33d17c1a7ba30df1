/**
 * One-time device enrollment codes. Rules:
 * - a code is an enrollment-code.ts code, shown once; only the SHA-256 of its normal form is
 *   stored, so the lookup by hash needs no secret comparison of its own and a code typed in
 *   another case or grouping finds the same row;
 * - it lives ENROLLMENT_TTL_MS and is consumed by one conditional UPDATE (used_at IS NULL and
 *   not expired), so two devices cannot enroll with the same code, even on two instances;
 * - issuing a new code for an account voids its earlier unused codes;
 * - the status of an account's latest code (pending, enrolled, expired) is what the "Add a device"
 *   page waits on; it tells nothing of the code itself.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuthSchema } from '../storage/schema.ts';
import { newEnrollmentCode, readEnrollmentCode } from './enrollment-code.ts';

export const ENROLLMENT_TTL_MS = 10 * 60_000;

export interface EnrollmentStore {
  /** A fresh code for the account; earlier unused codes stop working. */
  issue(accountId: string): Promise<{ code: string; expiresAt: number }>;
  /** The account the code was issued for, consuming it; undefined when malformed, unknown, used or expired. */
  consume(code: string): Promise<string | undefined>;
  /** Where the account's latest code stands: used by a device, still usable, or neither (none, expired). */
  status(accountId: string): Promise<EnrollmentStatus>;
}

export type EnrollmentStatus = { state: 'enrolled'; usedAt: number } | { state: 'pending'; expiresAt: number } | { state: 'expired' };

const hash = (code: string): string => createHash('sha256').update(code, 'utf8').digest('base64url');

export function createEnrollmentStore(db: Kysely<AuthSchema>, clock: () => number = Date.now): EnrollmentStore {
  return {
    async issue(accountId) {
      const now = clock();
      const code = newEnrollmentCode();
      const expiresAt = now + ENROLLMENT_TTL_MS;
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('device_enrollments').where('account_id', '=', accountId).where('used_at', 'is', null).execute();
        await trx.deleteFrom('device_enrollments').where('expires_at', '<', now).execute();
        await trx.insertInto('device_enrollments').values({ code_hash: hash(readEnrollmentCode(code)!), account_id: accountId, created_at: now, expires_at: expiresAt, used_at: null }).execute();
      });
      return { code, expiresAt };
    },

    async consume(code) {
      const normal = code.length <= 64 ? readEnrollmentCode(code) : undefined;
      if (!normal) return undefined;
      const now = clock();
      const codeHash = hash(normal);
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

    async status(accountId) {
      const row = await db
        .selectFrom('device_enrollments')
        .select(['expires_at', 'used_at'])
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .executeTakeFirst();
      if (row?.used_at != null) return { state: 'enrolled', usedAt: Number(row.used_at) };
      if (row && Number(row.expires_at) > clock()) return { state: 'pending', expiresAt: Number(row.expires_at) };
      return { state: 'expired' };
    },
  };
}
