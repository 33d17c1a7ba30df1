/**
 * WebAuthn challenges, kept server-side. Rules:
 * - a challenge is 32 random bytes (base64url), issued for one purpose (registration or
 *   authentication) and bound to what asked for it: the signed-in account (registration) or
 *   the login's interaction (authentication);
 * - it is single use: `take` deletes the row, and only the request whose DELETE removed it gets
 *   it, so a replayed response finds nothing, on every instance;
 * - it expires CHALLENGE_TTL_MS after issue (the injected clock); an expired or foreign one is
 *   as good as unknown; expired rows are purged with the other expired rows;
 * - at most MAX_LIVE_CHALLENGES live per purpose and binding: issuing one more drops the oldest,
 *   so asking for options in a loop cannot grow the table.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuthSchema } from '../storage/schema.ts';

export type ChallengePurpose = 'registration' | 'authentication';

/** Long enough for the browser's own ceremony timeout (PASSKEY_TIMEOUT_MS) plus the round trips. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
export const MAX_LIVE_CHALLENGES = 5;

export interface ChallengeStore {
  issue(purpose: ChallengePurpose, binding: string): Promise<string>;
  /** Uses the challenge once: true when it was issued for this purpose and binding and is still valid. */
  take(challenge: string, purpose: ChallengePurpose, binding: string): Promise<boolean>;
  purgeExpired(): Promise<void>;
}

export function createChallengeStore(db: Kysely<AuthSchema>, clock: () => number = Date.now): ChallengeStore {
  return {
    async issue(purpose, binding) {
      const challenge = randomBytes(32).toString('base64url');
      await db.insertInto('passkey_challenges').values({ challenge, purpose, binding, expires_at: clock() + CHALLENGE_TTL_MS }).execute();
      const newest = db
        .selectFrom('passkey_challenges')
        .select('challenge')
        .where('purpose', '=', purpose)
        .where('binding', '=', binding)
        .orderBy('expires_at', 'desc')
        .orderBy('challenge')
        .limit(MAX_LIVE_CHALLENGES);
      const kept = (await newest.execute()).map((row) => row.challenge);
      await db.deleteFrom('passkey_challenges').where('purpose', '=', purpose).where('binding', '=', binding).where('challenge', 'not in', kept).execute();
      return challenge;
    },
    async take(challenge, purpose, binding) {
      if (!/^[\w-]{1,128}$/.test(challenge)) return false;
      const result = await db
        .deleteFrom('passkey_challenges')
        .where('challenge', '=', challenge)
        .where('purpose', '=', purpose)
        .where('binding', '=', binding)
        .where('expires_at', '>', clock())
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    async purgeExpired() {
      await db.deleteFrom('passkey_challenges').where('expires_at', '<=', clock()).execute();
    },
  };
}
