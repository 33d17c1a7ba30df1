/**
 * The one bounded reader of request bodies. Rules, in the order they run:
 * - the media type (parameters aside, compared case-insensitively) is one of those the caller
 *   accepts: `application/json`, `application/*+json` (any subtype ending in `+json`, the vendor
 *   types included) or `application/x-www-form-urlencoded`; a missing or other type is
 *   `unsupported_media_type` (415);
 * - a `charset` parameter, when present, is `utf-8` (quoted or not, any case); the body is always
 *   decoded as UTF-8, so any other charset is `unsupported_media_type` (415) rather than misread;
 * - a declared Content-Length over the limit is refused before a byte is read, and a body that
 *   grows over the limit while streaming (chunked) is refused as soon as it does:
 *   `payload_too_large` (413);
 * - a connection that breaks before the body ends is `aborted` (400);
 * - JSON: a body of only whitespace is `empty_body`, text that does not parse is `malformed_json`,
 *   and, when the caller asks for an object, an array, `null` or a scalar is `not_an_object`
 *   (400 each);
 * - a form body is returned as its parameters in order, repeats kept: what a field may hold is
 *   the caller's rule, not the reader's.
 * Each app maps these codes onto its own public error shape; the reader never answers a request.
 */
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.ts';

/** The media types a caller may accept. */
export type BodyMediaType = 'application/json' | 'application/*+json' | 'application/x-www-form-urlencoded';

/** Every way reading a body can fail; each app maps these onto its own error shape. */
export type BodyErrorCode = 'unsupported_media_type' | 'payload_too_large' | 'aborted' | 'empty_body' | 'malformed_json' | 'not_an_object';

const STATUS: Readonly<Record<BodyErrorCode, number>> = {
  unsupported_media_type: 415,
  payload_too_large: 413,
  aborted: 400,
  empty_body: 400,
  malformed_json: 400,
  not_an_object: 400,
};

/** Why a body was refused: `code` is stable, `limit` is the byte limit that applied. */
export class BodyError extends HttpError<BodyErrorCode> {
  readonly limit: number;

  constructor(code: BodyErrorCode, limit: number, message: string, cause?: unknown) {
    super(STATUS[code], code, message, { cause });
    this.limit = limit;
  }
}

/** What {@link readRequestBody} accepts. */
export interface BodyReaderOptions {
  /** The largest body, in bytes. */
  readonly limit: number;
  /** The media types taken, at least one. */
  readonly accept: readonly BodyMediaType[];
  /** Whether a JSON body must be an object (not an array, `null` or a scalar). */
  readonly jsonObject?: boolean;
}

/** The JSON media types, for a reader that takes no form. */
export type JsonMediaType = Exclude<BodyMediaType, 'application/x-www-form-urlencoded'>;

/** A JSON body, parsed. */
export interface JsonBody {
  readonly kind: 'json';
  readonly value: unknown;
}

/** A form body, as its parameters. */
export interface FormBody {
  readonly kind: 'form';
  readonly params: URLSearchParams;
}

/** A body that passed every rule. */
export type RequestBody = JsonBody | FormBody;

/** The media type of a Content-Type header as one of `accept`, or undefined. */
function matchMediaType(header: string | undefined, accept: readonly BodyMediaType[]): BodyMediaType | undefined {
  if (!header) return undefined;
  const [media = '', ...params] = header.split(';').map((part) => part.trim().toLowerCase());
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq === -1 || param.slice(0, eq).trim() !== 'charset') continue;
    const charset = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (charset !== 'utf-8') return undefined;
  }
  if (media === 'application/json' && accept.includes('application/json')) return 'application/json';
  if (media === 'application/x-www-form-urlencoded' && accept.includes('application/x-www-form-urlencoded')) return 'application/x-www-form-urlencoded';
  if (/^application\/[a-z0-9.!#$&^_+-]+\+json$/.test(media) && accept.includes('application/*+json')) return 'application/*+json';
  return undefined;
}

async function readText(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyError('payload_too_large', limit, `the body is larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new BodyError('payload_too_large', limit, `the body is larger than ${limit} bytes`);
      chunks.push(chunk);
    }
  } catch (thrown) {
    if (thrown instanceof BodyError) throw thrown;
    throw new BodyError('aborted', limit, 'the connection closed before the body ended', thrown);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Reads and parses the body of `req` under the rules above, or throws a {@link BodyError}.
 * A JSON body comes back parsed (`kind: 'json'`), a form body as its parameters (`kind: 'form'`).
 */
export function readRequestBody(req: IncomingMessage, options: BodyReaderOptions & { readonly accept: readonly JsonMediaType[] }): Promise<JsonBody>;
export function readRequestBody(req: IncomingMessage, options: BodyReaderOptions): Promise<RequestBody>;
export async function readRequestBody(req: IncomingMessage, options: BodyReaderOptions): Promise<RequestBody> {
  const { limit } = options;
  const media = matchMediaType(req.headers['content-type'], options.accept);
  if (!media) throw new BodyError('unsupported_media_type', limit, `the body must be ${options.accept.join(' or ')}`);
  const text = await readText(req, limit);
  if (media === 'application/x-www-form-urlencoded') return { kind: 'form', params: new URLSearchParams(text) };
  if (!text.trim()) throw new BodyError('empty_body', limit, 'the body is empty');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (thrown) {
    throw new BodyError('malformed_json', limit, 'the body is not valid JSON', thrown);
  }
  if (options.jsonObject && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw new BodyError('not_an_object', limit, 'the JSON body must be an object');
  }
  return { kind: 'json', value };
}
