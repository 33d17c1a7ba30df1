/**
 * Extracts the access token from a request. Rules (RFC 6750 §2, RFC 9449 §7):
 * - only the Authorization header carries it: `Bearer <token68>` or `DPoP <token68>`, scheme
 *   case-insensitive; whether the scheme suits the token (bound to a DPoP key or not) is decided
 *   after the token is verified (dpop-binding.ts);
 * - an `access_token` query parameter is refused (400 invalid_request), never used; cookies are never read;
 * - no Authorization header, or another scheme (Basic…), is a request without a token:
 *   401 with a bare challenge, as §3.1 asks when the client used an unsupported method;
 * - a scheme followed by anything but one token68 is refused as invalid_request. That syntax
 *   check ({@link assertToken68}) runs only when the token is not in the verified-token cache:
 *   every cached token passed it already;
 * - the pre-routed item read takes Bearer only ({@link bearerToken}); a DPoP request goes the ordinary way.
 */
import { invalidRequest, missingToken } from './challenges.ts';

const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

/** The two schemes an access token may come with. */
export type TokenScheme = 'Bearer' | 'DPoP';

/** The access token of a request and the scheme it came with. */
export interface AccessCredential {
  readonly scheme: TokenScheme;
  readonly token: string;
}

function schemeOf(scheme: string): TokenScheme | undefined {
  if (scheme.length === 6 && scheme.toLowerCase() === 'bearer') return 'Bearer';
  if (scheme.length === 4 && scheme.toLowerCase() === 'dpop') return 'DPoP';
  return undefined;
}

export function accessCredential(authorization: string | undefined, queryHasToken: boolean, realm: string): AccessCredential {
  if (queryHasToken) throw invalidRequest(realm, 'access tokens are accepted only in the Authorization header');
  if (authorization === undefined || authorization === '') throw missingToken(realm);
  const space = authorization.indexOf(' ');
  const scheme = schemeOf(space < 0 ? authorization : authorization.slice(0, space));
  if (scheme === undefined) throw missingToken(realm);
  if (space < 0) throw invalidRequest(realm, `the ${scheme} credential is malformed`);
  const token = authorization.slice(space + 1);
  return { scheme, token: token.charCodeAt(0) === 32 || token.charCodeAt(token.length - 1) === 32 ? token.trim() : token };
}

/** The token of a `Bearer` credential; any other scheme is a request without a token (missing_token). */
export function bearerToken(authorization: string | undefined, queryHasToken: boolean, realm: string): string {
  const credential = accessCredential(authorization, queryHasToken, realm);
  if (credential.scheme !== 'Bearer') throw missingToken(realm);
  return credential.token;
}

/** Refuses a credential that is not one token68 (RFC 7235 §2.1). */
export function assertToken68(token: string, realm: string): void {
  if (!TOKEN68.test(token)) throw invalidRequest(realm, 'the Bearer credential is malformed');
}
