/**
 * What the console shows when the service layer refuses something: the services' coded errors
 * (AccountError, PasswordPolicyError, UserAdminError, ClientRegistryError, ScopePolicyError)
 * and the HTTP layer's AuthError become one ConsoleRefusal with a status and a stable code.
 * Rules (the same statuses the admin API answers, admin/http/*-routes.ts):
 * - unknown_* (user, client, grant) is 404; duplicate_* is 409; a password the policy refuses
 *   is 422 `password_<rule>`; any other coded refusal is 400 with its code;
 * - anything that is not one of these is not a refusal (undefined): the error handler answers
 *   it as a 500 with the request id;
 * - the message is in the viewer's language: a ConsoleError is made in it; in English a
 *   service's refusal shows its own message, in another language the text of its code
 *   (`console.error.<code>`, else the pages' `error.<code>`), so its details are left to the code
 *   and the field the page shows beside it.
 */
import { AuthError } from '../errors/auth-error.ts';
import { CodedError } from '../errors/coded-error.ts';
import { PasswordPolicyError } from '../accounts/password-policy.ts';
import type { PageLanguage } from '../i18n/page-language.ts';

export interface ConsoleRefusal {
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
}

/** A refusal the console itself makes (a form field missing, a read-only admin posting), its message in the viewer's language. */
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

/** A service's refusal `code` in the viewer's language: `english` itself in English. */
export function refusalText(language: PageLanguage, code: string, english: string): string {
  if (language.locale === 'en') return english;
  const own = `console.error.${code}`;
  return language.has(own) ? language.text(own) : language.text(`error.${code}`);
}

export function consoleRefusal(error: unknown, language: PageLanguage): ConsoleRefusal | undefined {
  if (error instanceof ConsoleError) return { status: error.status, code: error.code, message: error.message };
  if (error instanceof AuthError) return error.status < 500 ? { status: error.status, code: error.code, message: language.errorText(error), headers: error.headers } : undefined;
  if (error instanceof PasswordPolicyError) {
    const code = `password_${error.code}`;
    return { status: 422, code, message: refusalText(language, code, sentence(error.message)) };
  }
  if (error instanceof CodedError) {
    const code = String(error.code);
    const status = code.startsWith('unknown_') ? 404 : code.startsWith('duplicate_') ? 409 : 400;
    return { status, code, message: refusalText(language, code, sentence(error.message)) };
  }
  return undefined;
}
