/**
 * Extracts the access token from a request. Rules (RFC 6750 §2):
 * - only the Authorization header carries it: `Bearer <token68>`, scheme case-insensitive;
 * - an `access_token` query parameter is refused (400 invalid_request), never used; cookies are never read;
 * - any other scheme, or a value that is not token68, is refused as invalid_request.
 */
import { invalidRequest, missingToken } from './challenges.ts';

const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

export function bearerToken(authorization: string | undefined, queryHasToken: boolean, realm: string): string {
  if (queryHasToken) throw invalidRequest(realm, 'access tokens are accepted only in the Authorization header');
  if (authorization === undefined || authorization === '') throw missingToken(realm);
  const space = authorization.indexOf(' ');
  const scheme = space < 0 ? authorization : authorization.slice(0, space);
  if (scheme.toLowerCase() !== 'bearer') throw invalidRequest(realm, 'the Authorization header must use the Bearer scheme');
  const token = authorization.slice(space + 1).trim();
  if (space < 0 || !TOKEN68.test(token)) throw invalidRequest(realm, 'the Bearer credential is malformed');
  return token;
}
