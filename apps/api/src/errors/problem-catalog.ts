/**
 * What each error code of the API means, for the pages at `/problems/<code>` that problem
 * documents name as their `type` (RFC 9457 §3.1.1: the type URI should resolve to
 * human-readable documentation). Rules:
 * - every code of {@link ErrorCode} has exactly one entry (the Record type makes a missing one a
 *   compile error; a test walks ERROR_CODES over HTTP);
 * - `status` is the status the API answers with that code; `meaning` says what happened and
 *   `action` what the client should do, in plain sentences without internals;
 * - the type URI is the configured public URL (API_PUBLIC_URL) + `/problems/<code>`, never built
 *   from the request.
 */
import { API_ROUTES } from '@gatehouse/contracts';
import type { ErrorCode } from './api-error.ts';

export interface ProblemDescription {
  readonly status: number;
  readonly title: string;
  readonly meaning: string;
  readonly action: string;
}

export const PROBLEM_CATALOG: Readonly<Record<ErrorCode, ProblemDescription>> = {
  not_found: {
    status: 404,
    title: 'Not Found',
    meaning: 'Nothing is served at the requested path.',
    action: 'Check the path against the OpenAPI document (/api/openapi.json); collection paths look like /api/<resource> and /api/<resource>/<id>.',
  },
  database_unavailable: {
    status: 503,
    title: 'Service Unavailable',
    meaning: 'The API cannot reach its database right now (a restart or a dropped connection). Nothing was changed.',
    action: 'Retry after the number of seconds in the Retry-After header. Writes are safe to repeat: an item id is chosen by the client.',
  },
  collection_not_found: {
    status: 404,
    title: 'Not Found',
    meaning: 'The path names a collection this API does not declare.',
    action: 'Use one of the collections listed in the OpenAPI document; names are lower-case plural nouns.',
  },
  item_not_found: {
    status: 404,
    title: 'Not Found',
    meaning: 'The collection exists but holds no item with the id in the path.',
    action: 'Check the id; list the collection to see which ids exist, or create the item with POST.',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method Not Allowed',
    meaning: 'The path exists but does not accept this HTTP method.',
    action: 'Use one of the methods named in the Allow header.',
  },
  not_acceptable: {
    status: 406,
    title: 'Not Acceptable',
    meaning: 'None of the media types in the Accept header can be produced.',
    action: 'Accept application/json, application/xml, text/html or a versioned vendor type such as application/vnd.gatehouse.v2+json; the detail lists what is available.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported Media Type',
    meaning: 'The request body is not JSON.',
    action: 'Send the body as application/json (or an application/*+json type), as the Accept-Post header says.',
  },
  payload_too_large: {
    status: 413,
    title: 'Content Too Large',
    meaning: 'The request body is larger than the configured limit; the API stopped reading it and closes the connection.',
    action: 'Send a smaller body; the detail names the limit in bytes.',
  },
  malformed_body: {
    status: 400,
    title: 'Bad Request',
    meaning: 'The request body could not be read as JSON.',
    action: 'Send well-formed JSON (UTF-8) holding one object.',
  },
  validation_failed: {
    status: 400,
    title: 'Bad Request',
    meaning: 'One or more fields of the item break the rules of its collection; the errors member names each field and why.',
    action: 'Fix the fields named in errors[].field as errors[].message says, then send the request again.',
  },
  invalid_id: {
    status: 400,
    title: 'Bad Request',
    meaning: 'The item id in the path is not a positive integer.',
    action: 'Use an integer id from 1 to 9007199254740991.',
  },
  id_mismatch: {
    status: 400,
    title: 'Bad Request',
    meaning: 'The id in the body of a PUT differs from the id in the path.',
    action: 'Leave the id out of the body, or make it equal to the id in the path.',
  },
  duplicate_id: {
    status: 409,
    title: 'Conflict',
    meaning: 'The collection already holds an item with the id sent in the POST body.',
    action: 'Choose another id, or replace the existing item with PUT /api/<resource>/<id>.',
  },
  invalid_paging: {
    status: 400,
    title: 'Bad Request',
    meaning: 'A paging parameter (limit or after) is out of range or not a number.',
    action: 'Use limit from 1 to the maximum in the OpenAPI document, and after = the last id of the previous page (or follow the Link rel="next" header).',
  },
  unsupported_version: {
    status: 400,
    title: 'Bad Request',
    meaning: 'The request asks for an API version this server does not offer; the supported member lists the ones it does.',
    action: 'Ask for one of the versions in supported (path, API-Version header, version query parameter or vendor media type).',
  },
  version_conflict: {
    status: 400,
    title: 'Bad Request',
    meaning: 'Two versioning schemes in the same request name different versions.',
    action: 'Name the version one way only, or make every scheme name the same version.',
  },
  missing_token: {
    status: 401,
    title: 'Unauthorized',
    meaning: 'The request carries no access token.',
    action: 'Get an access token from the authorization server and send it as Authorization: Bearer <token>, or, when it is bound to a key, as Authorization: DPoP <token> with a DPoP proof.',
  },
  invalid_request: {
    status: 400,
    title: 'Bad Request',
    meaning: 'The request is malformed: for example an access token in the query string, credentials that are not a Bearer token, or a request the server could not parse.',
    action: 'Send the access token only in the Authorization header as a Bearer credential, and check the request line and headers.',
  },
  invalid_token: {
    status: 401,
    title: 'Unauthorized',
    meaning:
      'The access token is malformed, expired, revoked, signed by an unknown key, issued for another API or by another issuer, or sent with the wrong scheme: a token bound to a DPoP key only as DPoP, any other only as Bearer.',
    action: 'Get a new access token (refresh it or sign in again) for this API and send the request again.',
  },
  invalid_dpop_proof: {
    status: 401,
    title: 'Unauthorized',
    meaning:
      'The access token is bound to a key (DPoP, RFC 9449) and the DPoP proof sent with it is missing, malformed, signed with an algorithm not in the algs of the WWW-Authenticate challenge, for another method or URL, too old or too far in the future, for another token or key, or was used before.',
    action: 'Send a fresh DPoP proof with every request: signed by the key the token is bound to, with htm and htu of this request, iat now, ath of the token and a new jti.',
  },
  insufficient_scope: {
    status: 403,
    title: 'Forbidden',
    meaning: 'The access token is valid but lacks the scope this request needs; the scope member names it.',
    action: 'Ask the authorization server for a token with that scope (the user or client must be allowed it).',
  },
  authorization_server_unavailable: {
    status: 503,
    title: 'Service Unavailable',
    meaning: 'The API could not reach the authorization server to check the access token.',
    action: 'Retry after the number of seconds in the Retry-After header.',
  },
  server_error: {
    status: 500,
    title: 'Internal Server Error',
    meaning: 'An unexpected error occurred on the server. No internal details are given.',
    action: 'Retry later; if it persists, report the requestId of the answer to the operators.',
  },
};

/** Whether `code` names an entry of the catalog (own keys only: never `constructor` and the like). */
export function isKnownCode(code: string): code is ErrorCode {
  return Object.hasOwn(PROBLEM_CATALOG, code);
}

/** The problem type URI of `code`: the documentation page under the configured public URL. */
export function problemTypeUri(publicUrl: string, code: ErrorCode): string {
  return `${publicUrl}${API_ROUTES.problems}/${code}`;
}
