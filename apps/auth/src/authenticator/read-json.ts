/**
 * Bodies of the authenticator API. Rules:
 * - only application/json (else 415), at most 8 KiB (else 413);
 * - the body must be a JSON object (else 400); field types are checked by the caller;
 * - the three rules above are the shared reader's (`@gatehouse/http` readRequestBody), answered
 *   in the auth server's error shape (toAuthError in http/read-body.ts).
 */
import type { Context } from 'koa';
import { readRequestBody } from '@gatehouse/http';
import { invalidRequest } from '../errors/auth-error.ts';
import { toAuthError } from '../http/read-body.ts';

const LIMIT = 8 * 1024;

export async function readJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  try {
    const body = await readRequestBody(ctx.req, { limit: LIMIT, accept: ['application/json'], jsonObject: true });
    return body.value as Record<string, unknown>;
  } catch (thrown) {
    throw toAuthError(thrown, 'Send the request as application/json.');
  }
}

/** A string member of at most `max` characters matching `pattern`, or 400 naming it. */
export function stringField(body: Record<string, unknown>, name: string, max: number, pattern?: RegExp): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '') throw invalidRequest(`Field "${name}" is required and must be a string.`);
  if (value.length > max) throw invalidRequest(`Field "${name}" is longer than ${max} characters.`);
  if (pattern && !pattern.test(value)) throw invalidRequest(`Field "${name}" is malformed.`);
  return value;
}
