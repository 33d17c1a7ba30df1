/**
 * The admin console's CSRF token, on top of the same-origin check every own page's post passes
 * (http/same-origin.ts). Rules:
 * - the token is an HMAC-SHA256, under the cookie keys (AUTH_COOKIE_KEYS: the first signs, every
 *   key verifies, so a key rotation does not break an open page), of the SSO session's uid: it
 *   is bound to the browser's session and changes with every sign-in;
 * - every console form carries it as the hidden field `csrf`; a post without it, or with
 *   another session's or a forged one, is refused 403 `csrf_refused` before anything is done;
 * - compared in constant time (crypto/safe-equal.ts).
 */
import { createHmac } from 'node:crypto';
import { safeEqual } from '../crypto/safe-equal.ts';

export const CSRF_FIELD = 'csrf';

const sign = (key: string, sessionUid: string): string => createHmac('sha256', key).update(`gatehouse-console-csrf\0${sessionUid}`).digest('base64url');

/** The token the console's forms carry for this session. */
export function csrfToken(keys: readonly string[], sessionUid: string): string {
  return sign(keys[0]!, sessionUid);
}

/** Whether `given` is this session's token under one of the keys. */
export function csrfValid(keys: readonly string[], sessionUid: string, given: string | undefined): boolean {
  if (!given) return false;
  let valid = false;
  for (const key of keys) valid = safeEqual(sign(key, sessionUid), given) || valid;
  return valid;
}
