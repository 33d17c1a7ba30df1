/**
 * What the console shows when the service layer refuses something: the services' coded errors
 * (AccountError, PasswordPolicyError, UserAdminError, ClientRegistryError, ScopePolicyError)
 * and the HTTP layer's AuthError become one ConsoleRefusal with a status and a stable code.
 * Rules (the same statuses the admin API answers, admin/http/*-routes.ts):
 * - unknown_* (user, client, grant) is 404; duplicate_* is 409; a password the policy refuses
 *   is 422 `password_<rule>`; any other coded refusal is 400 with its code;
 * - anything that is not one of these is not a refusal (undefined): the error handler answers
 *   it as a 500 with the request id.
 */
import { AuthError } from '../errors/auth-error.ts';
import { CodedError } from '../errors/coded-error.ts';
import { PasswordPolicyError } from '../accounts/password-policy.ts';

export interface ConsoleRefusal {
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
}

/** A refusal the console itself makes (a form field missing, a read-only admin posting). */
export class ConsoleError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ConsoleError';
    this.status = status;
    this.code = code;
  }
}

const sentence = (message: string): string => {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
};

export function consoleRefusal(error: unknown): ConsoleRefusal | undefined {
  if (error instanceof ConsoleError) return { status: error.status, code: error.code, message: error.message };
  if (error instanceof AuthError) return error.status < 500 ? { status: error.status, code: error.code, message: error.message, headers: error.headers } : undefined;
  if (error instanceof PasswordPolicyError) return { status: 422, code: `password_${error.code}`, message: sentence(error.message) };
  if (error instanceof CodedError) {
    const code = String(error.code);
    const status = code.startsWith('unknown_') ? 404 : code.startsWith('duplicate_') ? 409 : 400;
    return { status, code, message: sentence(error.message) };
  }
  return undefined;
}
