import { z } from 'zod';

const cursor = z.number().int().positive();
const epochSeconds = z.number().int().nonnegative();

/**
 * One entry of the authorization server's revocation feed. Names follow the OpenID Shared
 * Signals vocabulary where one fits (CAEP `session-revoked`, RISC `account-disabled`):
 * - `token-revoked`: the access token with this `jti` is no longer active;
 * - `session-revoked`: every token of the grant `grant_id` (its `grant_id` claim) is no longer active;
 * - `account-disabled`: every token of `sub` issued before `issued_before` is no longer active.
 * `id` is the feed cursor (it only grows); `exp` is when the entry can be forgotten, because
 * every token it concerns has expired by then (epoch seconds).
 */
export const RevocationEvent = z.discriminatedUnion('type', [
  z.object({ id: cursor, type: z.literal('token-revoked'), jti: z.string().min(1), exp: epochSeconds }),
  z.object({ id: cursor, type: z.literal('session-revoked'), grant_id: z.string().min(1), exp: epochSeconds }),
  z.object({ id: cursor, type: z.literal('account-disabled'), sub: z.string().min(1), issued_before: epochSeconds, exp: epochSeconds }),
]);
export type RevocationEvent = z.infer<typeof RevocationEvent>;

/** The JSON catch-up answer of the feed: events after the asked cursor, oldest first, and the cursor to ask next. */
export const RevocationFeedPage = z.object({
  events: z.array(RevocationEvent),
  cursor: z.number().int().nonnegative(),
  /** True when more events follow `cursor` (ask again at once). */
  more: z.boolean(),
});
export type RevocationFeedPage = z.infer<typeof RevocationFeedPage>;
