/**
 * The `jti` of every back-channel logout token this client took, until the token expires
 * (OpenID Connect Back-Channel Logout 1.0 §2.6 step 8: a replayed token is refused). Rules:
 * - remember() stores a jti once per client, in one statement: of two requests carrying the
 *   same token, exactly one is told it is new;
 * - expired rows are deleted by the periodic purge.
 */
import type { Kysely } from 'kysely';
import type { ClientSchema } from '../storage/schema.ts';

export interface LogoutTokenStore {
  /** True when the jti was not taken before (and is now); false for a replay. */
  remember(jti: string, expiresAt: number): Promise<boolean>;
  purgeExpired(): Promise<number>;
}

export function createLogoutTokenStore(db: Kysely<ClientSchema>, clientId: string, clock: () => number): LogoutTokenStore {
  return {
    async remember(jti, expiresAt) {
      const result = await db
        .insertInto('client_logout_tokens')
        .values({ jti, client_id: clientId, expires_at: expiresAt })
        .onConflict((oc) => oc.columns(['client_id', 'jti']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    async purgeExpired() {
      const result = await db.deleteFrom('client_logout_tokens').where('expires_at', '<=', clock()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
