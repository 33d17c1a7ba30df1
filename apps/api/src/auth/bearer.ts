/**
 * Extracts the access token from a request. Rules (RFC 6750 §2):
 * - only the Authorization header carries it: `Bearer <token68>`, scheme case-insensitive;
 * - an `access_token` query parameter is refused (400 invalid_request), never used; cookies are never read;
 * - no Authorization header, or another scheme (Basic…), is a request without a token:
 *   401 with a bare challenge, as §3.1 asks when the client used an unsupported method;
 * - `Bearer` followed by anything but one token68 is refused as invalid_request. That syntax
 *   check ({@link assertToken68}) runs only when the token is not in the verified-token cache:
 *   every cached token passed it already.
 */
import { invalidRequest, missingToken } from './challenges.ts';

const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

export function bearerToken(authorization: string | undefined, queryHasToken: boolean, realm: string): string {
  if (queryHasToken) throw invalidRequest(realm, 'access tokens are accepted only in the Authorization header');
  if (authorization === undefined || authorization === '') throw missingToken(realm);
  const space = authorization.indexOf(' ');
  const scheme = space < 0 ? authorization : authorization.slice(0, space);
  if (scheme.length !== 6 || scheme.toLowerCase() !== 'bearer') throw missingToken(realm);
  if (space < 0) throw invalidRequest(realm, 'the Bearer credential is malformed');
  const token = authorization.slice(space + 1);
  return token.charCodeAt(0) === 32 || token.charCodeAt(token.length - 1) === 32 ? token.trim() : token;
}

/** Refuses a credential that is not one token68 (RFC 7235 §2.1). */
export function assertToken68(token: string, realm: string): void {
  if (!TOKEN68.test(token)) throw invalidRequest(realm, 'the Bearer credential is malformed');
}
