/**
 * Reads a JSON request body. Rules:
 * - the Content-Type is `application/json` or any `application/*+json` (the vendor types included),
 *   with no charset or `charset=utf-8`; anything else is 415;
 * - a declared Content-Length over the limit is refused before reading; a body that grows
 *   over the limit while streaming is refused as soon as it does (413);
 * - an empty body or invalid JSON is 400 malformed_body.
 */
import type { IncomingMessage } from 'node:http';
import { malformedBody, payloadTooLarge, unsupportedMediaType } from '../errors/api-error.ts';

const ACCEPTED = ['application/json', 'application/vnd.gatehouse.v<n>+json'];

function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const [media, ...params] = contentType.split(';').map((s) => s.trim().toLowerCase());
  if (!media || !(media === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(media))) return false;
  return params.every((p) => !p.startsWith('charset=') || p === 'charset=utf-8' || p === 'charset="utf-8"');
}

export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  if (!isJsonType(req.headers['content-type'])) throw unsupportedMediaType(ACCEPTED);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw payloadTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw payloadTooLarge(limit);
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) throw malformedBody('the request body is empty; send one item as JSON');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw malformedBody('the request body is not valid JSON');
  }
}
