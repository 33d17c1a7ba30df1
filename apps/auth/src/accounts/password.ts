/**
 * Password hashing. Rules:
 * - argon2id with OWASP's minimum profile (19 MiB, 2 passes, 1 lane); parameters live in the hash;
 * - a malformed stored hash verifies as false, never throws to the login handler;
 * - a login for an unknown user still pays one argon2 verification (burnPasswordCheck),
 *   so response time does not reveal which usernames exist;
 * - at most one hash or verification per CPU core runs at once (hashing-slots.ts); the rest wait.
 */
import { availableParallelism } from 'node:os';
import argon2 from 'argon2';
import { hashingSlots } from './hashing-slots.ts';

const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

const slot = hashingSlots(availableParallelism());

export function hashPassword(password: string): Promise<string> {
  return slot(() => argon2.hash(password, OPTIONS));
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await slot(() => argon2.verify(hash, password));
  } catch {
    return false;
  }
}

/**
 * The password hash of an account that has no password (created by a federated sign-in): not
 * an argon2 hash, so no password verifies against it.
 */
export const NO_PASSWORD = '!no-password';

export const hasPassword = (passwordHash: string): boolean => passwordHash !== NO_PASSWORD;

/**
 * Hash of a random password nobody knows, made once with OPTIONS. Being a constant, even the
 * first unknown-user login costs exactly one verification; a test keeps its parameters in step.
 */
export const DUMMY_PASSWORD_HASH = '$argon2id$v=19$m=19456,p=1,t=2$QXoMhWGAQe9cBS12fB706Q$JXHh8Y6heB+Ixg2L9qe3Y4W60Y224iqt0IKtm4CoIxg';

/** Spends the time of a failed password check; the result is always discarded. */
export async function burnPasswordCheck(password: string): Promise<void> {
  await verifyPassword(DUMMY_PASSWORD_HASH, password);
}
