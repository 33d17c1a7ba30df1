/**
 * The error shapes of the service contract (docs/spec.md), as checks on a response. Each check
 * answers `undefined` when the response has its shape, or a sentence saying what is wrong. Rules:
 * - RFC 6749 §5.2: JSON object, `error` a string of the allowed characters, `error_description`
 *   (if present) a string;
 * - RFC 9457 JSON: `application/problem+json`, an object whose `status` equals the response status
 *   and whose `title` is a string;
 * - RFC 9457 XML: `application/problem+xml`, a `<problem xmlns="urn:ietf:rfc:7807">` document with
 *   the response status in `<status>`;
 * - HTML error page: `text/html`, a whole document matching the app's marker;
 * - a rejection by Node's HTTP parser (the request never reached the app: malformed request line
 *   or headers, too large) is a 400/413/414/431 with an empty body and no `X-Request-Id`;
 * - the body of a HEAD answer is empty by definition; only its Content-Type is checked.
 */
import type { FuzzRequest, FuzzResponse } from './send-raw.ts';

/** A shape check: `undefined` when the response has the shape, otherwise why not. */
export type ShapeCheck = (response: FuzzResponse, request: FuzzRequest) => string | undefined;

const mediaType = (response: FuzzResponse): string => (response.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
const isHead = (request: FuzzRequest): boolean => request.method.toUpperCase() === 'HEAD';

function parseJson(response: FuzzResponse): unknown {
  try {
    return JSON.parse(response.text) as unknown;
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** RFC 6749 §5.2 error JSON (`{ error, error_description? }`). */
export const oauthErrorJson: ShapeCheck = (response, request) => {
  if (mediaType(response) !== 'application/json') return `content-type ${response.header('content-type')} is not application/json`;
  if (isHead(request)) return undefined;
  const body = parseJson(response);
  if (!isObject(body)) return 'body is not a JSON object';
  if (typeof body.error !== 'string' || !/^[\x20\x21\x23-\x5B\x5D-\x7E]+$/.test(body.error)) return '`error` is not an RFC 6749 error code';
  if (body.error_description !== undefined && typeof body.error_description !== 'string') return '`error_description` is not a string';
  return undefined;
};

/** RFC 9457 problem details as JSON. */
export const problemJson: ShapeCheck = (response, request) => {
  if (mediaType(response) !== 'application/problem+json') return `content-type ${response.header('content-type')} is not application/problem+json`;
  if (isHead(request)) return undefined;
  const body = parseJson(response);
  if (!isObject(body)) return 'body is not a JSON object';
  if (body.status !== response.status) return `problem status ${String(body.status)} is not the response status ${response.status}`;
  if (typeof body.title !== 'string') return 'problem has no title';
  if (body.type !== undefined && typeof body.type !== 'string') return 'problem type is not a string';
  return undefined;
};

/** RFC 9457 problem details as XML (Appendix B). */
export const problemXml: ShapeCheck = (response, request) => {
  if (mediaType(response) !== 'application/problem+xml') return `content-type ${response.header('content-type')} is not application/problem+xml`;
  if (isHead(request)) return undefined;
  if (!/<problem xmlns="urn:ietf:rfc:7807">[\s\S]*<\/problem>\s*$/.test(response.text)) return 'body is not a <problem> document';
  if (!response.text.includes(`<status>${response.status}</status>`)) return 'problem <status> is not the response status';
  return undefined;
};

/** An HTML error page: a whole document that matches `marker` (e.g. the page's error-code element). */
export function htmlErrorPage(marker: RegExp): ShapeCheck {
  return (response, request) => {
    if (mediaType(response) !== 'text/html') return `content-type ${response.header('content-type')} is not text/html`;
    if (isHead(request)) return undefined;
    if (!/^<!doctype html>/i.test(response.text.trimStart()) || !/<\/html>\s*$/i.test(response.text)) return 'body is not a whole HTML document';
    if (!marker.test(response.text)) return `HTML page does not match ${marker}`;
    return undefined;
  };
}

/** Node's own answer to a request it could not parse (it never reached the app). */
export const parserRejection: ShapeCheck = (response) => {
  if (![400, 413, 414, 431].includes(response.status)) return `status ${response.status} is not a parser rejection`;
  if (response.header('x-request-id') !== undefined) return 'the app answered (X-Request-Id is set)';
  if (response.body.length > 0) return 'a parser rejection has an empty body';
  return undefined;
};

/** Passes when any of the checks passes; otherwise lists every reason. */
export function anyShape(...checks: readonly ShapeCheck[]): ShapeCheck {
  return (response, request) => {
    const reasons: string[] = [];
    for (const check of checks) {
      const reason = check(response, request);
      if (reason === undefined) return undefined;
      reasons.push(reason);
    }
    return `no error shape fits: ${reasons.join('; ')}`;
  };
}
