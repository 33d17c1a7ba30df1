/**
 * The one error type of the resource server, on the shared HttpError (@gatehouse/http). Every
 * error that reaches the client is an {@link ApiError} with a status, a stable `code` from
 * {@link ErrorCode} and a title; callers and tests switch on the code, never on the message.
 * Anything else is unexpected and becomes a generic 500 `server_error` (see error-handler.ts).
 * Each code has a documentation page at `/problems/<code>` (problem-catalog.ts), which is the
 * problem document's `type`.
 */
import { HttpError } from '@gatehouse/http';

/** Every code an API error can carry, as a value so the documentation pages (problem-catalog.ts) can be checked against it. */
export const ERROR_CODES = [
  'not_found',
  'database_unavailable',
  'collection_not_found',
  'item_not_found',
  'method_not_allowed',
  'not_acceptable',
  'unsupported_media_type',
  'payload_too_large',
  'malformed_body',
  'validation_failed',
  'invalid_id',
  'id_mismatch',
  'duplicate_id',
  'invalid_paging',
  'unsupported_version',
  'version_conflict',
  'missing_token',
  'invalid_request',
  'invalid_token',
  'invalid_dpop_proof',
  'insufficient_scope',
  'authorization_server_unavailable',
  'server_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

export interface ApiErrorOptions {
  detail?: string;
  errors?: readonly FieldError[];
  headers?: Readonly<Record<string, string>>;
  /** Extra members of the problem document (e.g. `supported` versions). */
  extensions?: Readonly<Record<string, unknown>>;
  cause?: unknown;
}

export class ApiError extends HttpError<ErrorCode> {
  readonly title: string;
  readonly detail: string | undefined;
  readonly errors: readonly FieldError[] | undefined;
  /** Extra members of the problem document. */
  readonly extensions: Readonly<Record<string, unknown>>;

  constructor(status: number, code: ErrorCode, title: string, options: ApiErrorOptions = {}) {
    // A 503 says what to do (try again, Retry-After) without internals: shown. Other 5xx are not.
    super(status, code, options.detail ?? title, { headers: options.headers, cause: options.cause, expose: status < 500 || status === 503 });
    this.title = title;
    this.detail = options.detail;
    this.errors = options.errors;
    this.extensions = options.extensions ?? {};
  }
}

export const notFound = (detail: string): ApiError => new ApiError(404, 'not_found', 'Not Found', { detail });
export const collectionNotFound = (name: string): ApiError =>
  new ApiError(404, 'collection_not_found', 'Not Found', { detail: `there is no collection named "${name}"` });
export const itemNotFound = (collection: string, id: number): ApiError =>
  new ApiError(404, 'item_not_found', 'Not Found', { detail: `${collection} has no item with id ${id}` });
export const methodNotAllowed = (method: string, allow: readonly string[]): ApiError =>
  new ApiError(405, 'method_not_allowed', 'Method Not Allowed', {
    detail: `${method} is not allowed here; use ${allow.join(', ')}`,
    headers: { Allow: allow.join(', ') },
  });
export const notAcceptable = (available: readonly string[]): ApiError =>
  new ApiError(406, 'not_acceptable', 'Not Acceptable', {
    detail: `none of the media types in Accept can be produced; available: ${available.join(', ')}`,
  });
export const unsupportedMediaType = (accepted: readonly string[]): ApiError =>
  new ApiError(415, 'unsupported_media_type', 'Unsupported Media Type', {
    detail: `the request body must be ${accepted.join(' or ')}`,
    headers: { 'Accept-Post': accepted.join(', ') },
  });
export const payloadTooLarge = (limit: number): ApiError =>
  new ApiError(413, 'payload_too_large', 'Content Too Large', {
    detail: `the request body exceeds the limit of ${limit} bytes`,
    // The rest of the body is not read, so the connection cannot carry another request.
    headers: { Connection: 'close' },
  });
export const malformedBody = (detail: string): ApiError => new ApiError(400, 'malformed_body', 'Bad Request', { detail });
export const validationFailed = (errors: readonly FieldError[]): ApiError =>
  new ApiError(400, 'validation_failed', 'Bad Request', {
    detail: `invalid field${errors.length === 1 ? '' : 's'}: ${[...new Set(errors.map((e) => e.field))].join(', ')}`,
    errors,
  });
