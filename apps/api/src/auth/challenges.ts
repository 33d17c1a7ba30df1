/**
 * RFC 6750 §3 challenges. Rules:
 * - no credentials: 401 with `WWW-Authenticate: Bearer realm="…"` and no error code;
 * - a malformed request (token in the query, or not a Bearer credential): 400 `invalid_request`;
 * - a bad, expired, revoked or foreign token: 401 `invalid_token`;
 * - a token without the needed scope: 403 `insufficient_scope` with `scope="…"`;
 * - descriptions are fixed strings of this module's callers, so they never carry quotes or the token.
 */
import { ApiError } from '../errors/api-error.ts';

const challenge = (realm: string, params: Record<string, string> = {}): string =>
  ['Bearer realm="' + realm + '"', ...Object.entries(params).map(([k, v]) => `${k}="${v.replace(/["\\]/g, '')}"`)].join(', ');

export function missingToken(realm: string): ApiError {
  return new ApiError(401, 'missing_token', 'Unauthorized', {
    detail: 'this resource needs an access token in the Authorization header (Bearer)',
    headers: { 'WWW-Authenticate': challenge(realm) },
  });
}

export function invalidRequest(realm: string, description: string): ApiError {
  return new ApiError(400, 'invalid_request', 'Bad Request', {
    detail: description,
    headers: { 'WWW-Authenticate': challenge(realm, { error: 'invalid_request', error_description: description }) },
  });
}

export function invalidToken(realm: string, description: string): ApiError {
  return new ApiError(401, 'invalid_token', 'Unauthorized', {
    detail: description,
    headers: { 'WWW-Authenticate': challenge(realm, { error: 'invalid_token', error_description: description }) },
  });
}

export function insufficientScope(realm: string, scope: string): ApiError {
  return new ApiError(403, 'insufficient_scope', 'Forbidden', {
    detail: `this request needs the scope ${scope}`,
    headers: {
      'WWW-Authenticate': challenge(realm, { error: 'insufficient_scope', error_description: `this request needs the scope ${scope}`, scope }),
    },
    extensions: { scope },
  });
}

export function authorizationServerUnavailable(): ApiError {
  return new ApiError(503, 'authorization_server_unavailable', 'Service Unavailable', {
    detail: 'the authorization server could not be reached to check the access token',
    headers: { 'Retry-After': '5' },
  });
}
