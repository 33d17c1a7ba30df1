/**
 * What a user typed as a one-time code, made comparable. Rules:
 * - spaces (any whitespace) and dashes (ASCII hyphen-minus and the Unicode dashes a phone's
 *   keyboard or a copy from an app may produce) are separators, not part of the code, so
 *   "123 456" and "123-456" are "123456";
 * - nothing else is changed: what remains is checked by the caller (six digits for TOTP).
 */
export function normalizeOneTimeCode(input: string): string {
  return input.replace(/[\s\-\u2010-\u2015\u2212]+/gu, '');
}
