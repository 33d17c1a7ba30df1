/**
 * Rules for bodies of the interaction endpoints (/login, /mfa/verify):
 * - only application/x-www-form-urlencoded and application/json are accepted (else 415);
 * - at most 16 KiB (else 413); malformed JSON or a non-object JSON body is 400;
 * - every field must be a string; repeated form fields are refused;
 * - field names are data, never object members: `constructor`, `__proto__`, `toString` are fields
 *   like any other (the map has no prototype).
 */
import type { Context } from 'koa';
import { AuthError, invalidRequest } from '../errors/auth-error.ts';

export const BODY_LIMIT = 16 * 1024;

export interface ParsedBody {
  fields: Record<string, string>;
  json: boolean;
}

async function readRaw(ctx: Context): Promise<string> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > BODY_LIMIT) throw new AuthError(413, 'payload_too_large', `Request body is larger than ${BODY_LIMIT} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) throw new AuthError(413, 'payload_too_large', `Request body is larger than ${BODY_LIMIT} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function readBody(ctx: Context): Promise<ParsedBody> {
  const json = Boolean(ctx.request.is('application/json'));
  const form = Boolean(ctx.request.is('application/x-www-form-urlencoded'));
  if (!json && !form) {
    throw new AuthError(415, 'unsupported_media_type', 'Send the form as application/x-www-form-urlencoded or application/json.');
  }
  const text = await readRaw(ctx);
  const fields = Object.create(null) as Record<string, string>;
  if (json) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalidRequest('The request body is not valid JSON.');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalidRequest('The JSON body must be an object.');
    for (const [key, value] of Object.entries(parsed)) {
      if (typeof value !== 'string') throw invalidRequest(`Field "${key}" must be a string.`);
      fields[key] = value;
    }
  } else {
    const params = new URLSearchParams(text);
    for (const [key, value] of params) {
      if (Object.hasOwn(fields, key)) throw invalidRequest(`Field "${key}" is repeated.`);
      fields[key] = value;
    }
  }
  return { fields, json };
}

/** A required string field of at most `max` characters. */
export function requireField(body: ParsedBody, name: string, max: number): string {
  const value = body.fields[name];
  if (value === undefined || value === '') throw invalidRequest(`Field "${name}" is required.`);
  if (value.length > max) throw invalidRequest(`Field "${name}" is longer than ${max} characters.`);
  return value;
}
