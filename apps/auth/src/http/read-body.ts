/**
 * Rules for bodies of the interaction endpoints (/login, /mfa/verify):
 * - only application/x-www-form-urlencoded and application/json are accepted (else 415);
 * - at most 16 KiB (else 413); malformed JSON or a non-object JSON body is 400;
 *   these three are the shared reader's rules (`@gatehouse/http` readRequestBody), answered here
 *   in the auth server's error shape (toAuthError);
 * - every field must be a string; repeated form fields are refused;
 * - field names are data, never object members: `constructor`, `__proto__`, `toString` are fields
 *   like any other (the map has no prototype).
 */
import type { Context } from 'koa';
import { BodyError, readRequestBody } from '@gatehouse/http';
import { AuthError, invalidRequest } from '../errors/auth-error.ts';

export const BODY_LIMIT = 16 * 1024;

export interface ParsedBody {
  fields: Record<string, string>;
  json: boolean;
}

/**
 * The shared reader's refusal (`@gatehouse/http` readRequestBody) as the auth server's error;
 * `sendAs` is the 415 message naming the media types the endpoint takes. Anything else is
 * returned as it came.
 */
export function toAuthError(thrown: unknown, sendAs: string): unknown {
  if (!(thrown instanceof BodyError)) return thrown;
  switch (thrown.code) {
    case 'unsupported_media_type':
      return new AuthError(415, 'unsupported_media_type', sendAs);
    case 'payload_too_large':
      return new AuthError(413, 'payload_too_large', `Request body is larger than ${thrown.limit} bytes.`);
    case 'aborted':
      return invalidRequest('The request body ended before it was complete.');
    case 'empty_body':
    case 'malformed_json':
      return invalidRequest('The request body is not valid JSON.');
    case 'not_an_object':
      return invalidRequest('The JSON body must be an object.');
  }
}

export async function readBody(ctx: Context): Promise<ParsedBody> {
  let body;
  try {
    body = await readRequestBody(ctx.req, { limit: BODY_LIMIT, accept: ['application/x-www-form-urlencoded', 'application/json'], jsonObject: true });
  } catch (thrown) {
    throw toAuthError(thrown, 'Send the form as application/x-www-form-urlencoded or application/json.');
  }
  const fields = Object.create(null) as Record<string, string>;
  if (body.kind === 'json') {
    for (const [key, value] of Object.entries(body.value as object)) {
      if (typeof value !== 'string') throw invalidRequest(`Field "${key}" must be a string.`);
      fields[key] = value;
    }
  } else {
    for (const [key, value] of body.params) {
      if (Object.hasOwn(fields, key)) throw invalidRequest(`Field "${key}" is repeated.`);
      fields[key] = value;
    }
  }
  return { fields, json: body.kind === 'json' };
}

/** A required string field of at most `max` characters. */
export function requireField(body: ParsedBody, name: string, max: number): string {
  const value = body.fields[name];
  if (value === undefined || value === '') throw invalidRequest(`Field "${name}" is required.`);
  if (value.length > max) throw invalidRequest(`Field "${name}" is longer than ${max} characters.`);
  return value;
}
