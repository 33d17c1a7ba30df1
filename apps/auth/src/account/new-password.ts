/**
 * A new password typed twice on the account page or a reset link. Rules:
 * - both fields are required; they must be equal (`password_mismatch`), compared as typed;
 * - the password policy (accounts/password-policy.ts, NIST SP 800-63B) decides the rest, and
 *   each broken rule has its own code (`password_empty`, `password_too_short`,
 *   `password_too_long`, `password_common`) and sentence; the password is never echoed.
 */
import { checkPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, PasswordPolicyError, type PasswordRule } from '../accounts/password-policy.ts';
import { AuthError } from '../errors/auth-error.ts';
import type { ParsedBody } from '../http/read-body.ts';

const RULES: Record<PasswordRule, () => AuthError> = {
  empty: () => new AuthError(400, 'password_empty', 'Enter a new password.'),
  too_short: () => new AuthError(400, 'password_too_short', `The new password must be at least ${MIN_PASSWORD_LENGTH} characters.`),
  too_long: () => new AuthError(400, 'password_too_long', `The new password must be at most ${MAX_PASSWORD_LENGTH} characters.`),
  common: () => new AuthError(400, 'password_common', 'This password is on the list of common or breached passwords. Choose another.'),
};

/** The new password of the form, or an AuthError naming what is wrong with it. */
export function newPassword(body: ParsedBody): string {
  const password = body.fields.new_password ?? '';
  const confirmation = body.fields.new_password_confirm ?? '';
  if (password.length > 4 * MAX_PASSWORD_LENGTH) throw RULES.too_long();
  if (password !== '' && password !== confirmation) throw new AuthError(400, 'password_mismatch', 'The two new passwords do not match.');
  try {
    checkPassword(password);
  } catch (error) {
    if (error instanceof PasswordPolicyError) throw RULES[error.code]();
    throw error;
  }
  return password;
}
