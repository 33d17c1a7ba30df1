/**
 * Bodies of the authenticator API. Rules:
 * - only application/json (else 415), at most 8 KiB (else 413);
 * - the body must be a JSON object (else 400); field types are checked by the caller.
 */
import type { Context } from 'koa';
import { AuthError, invalidRequest } from '../errors/auth-error.ts';

const LIMIT = 8 * 1024;

export async function readJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  if (!ctx.request.is('application/json')) throw new AuthError(415, 'unsupported_media_type', 'Send the request as application/json.');
  if (Number(ctx.get('content-length') || 0) > LIMIT) throw new AuthError(413, 'payload_too_large', `Request body is larger than ${LIMIT} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > LIMIT) throw new AuthError(413, 'payload_too_large', `Request body is larger than ${LIMIT} bytes.`);
    chunks.push(chunk);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw invalidRequest('The request body is not valid JSON.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalidRequest('The JSON body must be an object.');
  return parsed as Record<string, unknown>;
}

/** A string member of at most `max` characters matching `pattern`, or 400 naming it. */
export function stringField(body: Record<string, unknown>, name: string, max: number, pattern?: RegExp): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '') throw invalidRequest(`Field "${name}" is required and must be a string.`);
  if (value.length > max) throw invalidRequest(`Field "${name}" is longer than ${max} characters.`);
  if (pattern && !pattern.test(value)) throw invalidRequest(`Field "${name}" is malformed.`);
  return value;
}
