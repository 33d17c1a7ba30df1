/**
 * One-time device enrollment codes, made to be read off one screen and typed on another. Rules:
 * - twelve characters of Crockford's base32 alphabet (digits and capitals without I, L, O, U),
 *   60 random bits, shown in groups of four (ABCD-EFGH-JKMN);
 * - a typed code is read in its normal form (normalizeEnrollmentCode, shared with the web
 *   authenticator's signed messages): any case, spaces and dashes ignored, I and L read as 1, O as 0;
 * - a normal form that is not twelve alphabet characters is no code at all.
 * Guessing is bounded by the code's short life (ENROLLMENT_TTL_MS), its single use and the
 * per-address regulation of wrong codes (authenticator/api.ts).
 */
import { randomBytes } from 'node:crypto';
import { normalizeEnrollmentCode } from './signed-request.ts';

export { normalizeEnrollmentCode };

export const ENROLLMENT_CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const ENROLLMENT_CODE_LENGTH = 12;
const NORMAL_FORM = new RegExp(`^[${ENROLLMENT_CODE_ALPHABET}]{${ENROLLMENT_CODE_LENGTH}}$`);

/** A fresh code in its grouped form; 256 is a multiple of 32, so `byte & 31` is unbiased. */
export function newEnrollmentCode(): string {
  const chars = [...randomBytes(ENROLLMENT_CODE_LENGTH)].map((byte) => ENROLLMENT_CODE_ALPHABET[byte & 31]!);
  return chars.join('').replace(/(.{4})(?!$)/g, '$1-');
}

/** The code's normal form when the typed text is a well-formed code, else undefined. */
export function readEnrollmentCode(typed: string): string | undefined {
  const normal = normalizeEnrollmentCode(typed);
  return NORMAL_FORM.test(normal) ? normal : undefined;
}
