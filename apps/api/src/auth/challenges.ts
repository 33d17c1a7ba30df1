/**
 * RFC 6750 §3 and RFC 9449 §7.1 challenges. Rules:
 * - no credentials: 401 with a bare `Bearer realm="…"` challenge and a `DPoP realm="…", algs="…"`
 *   one, so a client learns both schemes and the proof algorithms accepted;
 * - a malformed request (token in the query, or not a Bearer or DPoP credential): 400 `invalid_request`;
 * - a bad, expired, revoked or foreign token: 401 `invalid_token`, in the scheme the token came
 *   with ({@link inDpopScheme} turns a Bearer challenge into a DPoP one);
 * - a bad or missing DPoP proof: 401 `invalid_dpop_proof` in a DPoP challenge;
 * - a token without the needed scope: 403 `insufficient_scope` with `scope="…"`;
 * - every DPoP challenge names the accepted proof algorithms in `algs`;
 * - descriptions are fixed strings of this module's callers, so they never carry quotes or the token.
 */
import { DPOP_SIGNING_ALGORITHMS } from '@gatehouse/contracts';
import { ApiError } from '../errors/api-error.ts';

type Scheme = 'Bearer' | 'DPoP';

const DPOP_ALGS = DPOP_SIGNING_ALGORITHMS.join(' ');

const challenge = (realm: string, params: Record<string, string> = {}, scheme: Scheme = 'Bearer'): string =>
  [
    `${scheme} realm="${realm}"`,
    ...Object.entries({ ...params, ...(scheme === 'DPoP' ? { algs: DPOP_ALGS } : {}) }).map(([k, v]) => `${k}="${v.replace(/["\\]/g, '')}"`),
  ].join(', ');

export function missingToken(realm: string): ApiError {
  return new ApiError(401, 'missing_token', 'Unauthorized', {
    detail: 'this resource needs an access token in the Authorization header (Bearer, or DPoP with a DPoP proof)',
    headers: { 'WWW-Authenticate': `${challenge(realm)}, ${challenge(realm, {}, 'DPoP')}` },
  });
}

export function invalidRequest(realm: string, description: string): ApiError {
  return new ApiError(400, 'invalid_request', 'Bad Request', {
    detail: description,
    headers: { 'WWW-Authenticate': challenge(realm, { error: 'invalid_request', error_description: description }) },
  });
}

export function invalidToken(realm: string, description: string, scheme: Scheme = 'Bearer'): ApiError {
  return new ApiError(401, 'invalid_token', 'Unauthorized', {
    detail: description,
    headers: { 'WWW-Authenticate': challenge(realm, { error: 'invalid_token', error_description: description }, scheme) },
  });
}

export function invalidDpopProof(realm: string, description: string): ApiError {
  return new ApiError(401, 'invalid_dpop_proof', 'Unauthorized', {
    detail: description,
    headers: { 'WWW-Authenticate': challenge(realm, { error: 'invalid_dpop_proof', error_description: description }, 'DPoP') },
  });
}

/**
 * The same refusal for a request that used the DPoP scheme: its Bearer challenge becomes a DPoP
 * one (with `algs`). Anything without a Bearer challenge (503) is returned as it is.
 */
export function inDpopScheme(error: unknown, realm: string): unknown {
  if (!(error instanceof ApiError) || !error.headers['WWW-Authenticate']?.startsWith('Bearer ')) return error;
  const scope = error.extensions.scope;
  const params =
    error.code === 'missing_token'
      ? {}
      : { error: error.code, error_description: error.detail ?? error.title, ...(typeof scope === 'string' ? { scope } : {}) };
  return new ApiError(error.status, error.code, error.title, {
    detail: error.detail,
    extensions: error.extensions,
    headers: { ...error.headers, 'WWW-Authenticate': challenge(realm, params, 'DPoP') },
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
