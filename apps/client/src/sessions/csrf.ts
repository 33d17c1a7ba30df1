/**
 * Every form of a signed-in page posts `_csrf`, the session's own random token. Apps on other
 * ports of the same host are same-site, so SameSite=Lax alone does not stop their forms.
 * The comparison is constant-time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { csrfFailed } from '../errors/client-error.ts';

export const newCsrfToken = (): string => randomBytes(32).toString('base64url');

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

export function checkCsrf(expected: string, received: unknown): void {
  if (typeof received !== 'string' || !received || !timingSafeEqual(digest(expected), digest(received))) throw csrfFailed();
}
