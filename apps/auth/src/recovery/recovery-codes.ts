/**
 * Recovery codes. Rules:
 * - a set is RECOVERY_CODE_COUNT codes of 16 characters from Crockford's base32 alphabet
 *   (80 random bits each), shown as four groups of four: `k7mq-2x9d-h4rt-0vwe`;
 * - input is normalised before use: case, spaces and hyphens are ignored, and the look-alikes
 *   i/l → 1 and o → 0 are mapped as Crockford's alphabet prescribes;
 * - only SHA-256 of the normalised code is stored. A fast hash is enough because each code has
 *   80 bits of entropy: a stolen table cannot be searched (2^80 guesses per code), unlike a
 *   password, and the lookup is one indexed equality on the hash, so no stored secret is ever
 *   compared byte by byte in application code.
 */
import { createHash, randomBytes } from 'node:crypto';

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const LENGTH = 16;

/** A fresh random code in its display form. */
export function generateRecoveryCode(): string {
  const bytes = randomBytes(LENGTH);
  let code = '';
  // 256 is a multiple of 32, so `byte & 31` is uniform.
  for (const byte of bytes) code += ALPHABET[byte & 31];
  return code.match(/.{4}/g)!.join('-');
}

/** A full set of fresh codes. */
export function generateRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, generateRecoveryCode);
}

/** The canonical form of what a user typed, or undefined when it cannot be a recovery code. */
export function normalizeRecoveryCode(input: string): string | undefined {
  const compact = input.toLowerCase().replace(/[\s-]+/g, '').replace(/[il]/g, '1').replace(/o/g, '0');
  if (compact.length !== LENGTH) return undefined;
  for (const c of compact) if (!ALPHABET.includes(c)) return undefined;
  return compact;
}

export function hashRecoveryCode(normalized: string): string {
  return createHash('sha256').update(`gatehouse-recovery.${normalized}`, 'utf8').digest('base64url');
}
