/**
 * Validation of opaque access tokens through the authorization server's introspection
 * endpoint (RFC 7662). Rules:
 * - the call is a POST of `token` and `token_type_hint=access_token`, authenticated with this
 *   API's own client credentials (client_secret_basic, form-encoded per RFC 6749 §2.3.1);
 * - `active: false` refuses the token; so do an `aud` that does not contain this API's audience
 *   (or none at all), an `iss` other than the issuer, a `token_type` other than Bearer or DPoP, and an
 *   `exp` already past (with the leeway);
 * - `token_type: DPoP` needs `cnf.jkt` (RFC 9449 §6.2): the token is DPoP-bound and the principal
 *   carries the thumbprint for the proof check (dpop-binding.ts); a `cnf.jkt` makes a token bound
 *   whatever its `token_type`, and a `cnf` without `jkt` (another kind of binding) refuses it;
 * - a success may be reused until exp, but at most `maxAgeMs`, which bounds how long a revoked
 *   token keeps working;
 * - an endpoint that cannot be reached or answers garbage is 503, not 401: the token may be good.
 */
import { IntrospectionResponse, parseScope } from '@gatehouse/contracts';
import { authorizationServerUnavailable, invalidToken } from './challenges.ts';
import type { Discovery } from './discovery.ts';
import type { TokenVerifier, VerifiedToken } from './principal.ts';

const formEncode = (value: string): string => encodeURIComponent(value).replace(/%20/g, '+');

export function createIntrospectionVerifier(options: {
  issuer: string;
  audience: string;
  realm: string;
  clientId: string;
  clientSecret: string;
  clockToleranceSeconds: number;
  maxAgeMs: number;
  clock: () => number;
  fetch: typeof fetch;
  discovery: Discovery;
}): TokenVerifier {
  const basic = `Basic ${Buffer.from(`${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`).toString('base64')}`;
  const leewayMs = options.clockToleranceSeconds * 1000;

  return {
    async verify(token): Promise<VerifiedToken> {
      let endpoint: string | undefined;
      try {
        endpoint = (await options.discovery.get()).introspection_endpoint;
      } catch {
        throw authorizationServerUnavailable();
      }
      if (!endpoint) throw authorizationServerUnavailable();
      let body: unknown;
      try {
        const response = await options.fetch(endpoint, {
          method: 'POST',
          headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
          redirect: 'error',
          signal: AbortSignal.timeout(5_000),
        });
        if (!response.ok) throw new Error(`introspection answered ${response.status}`);
        body = await response.json();
      } catch {
        throw authorizationServerUnavailable();
      }
      const parsed = IntrospectionResponse.safeParse(body);
      if (!parsed.success) throw authorizationServerUnavailable();
      const claims = parsed.data;
      if (!claims.active) throw invalidToken(options.realm, 'the access token is not active');
      const audiences = claims.aud === undefined ? [] : Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      if (!audiences.includes(options.audience)) throw invalidToken(options.realm, 'the access token was not issued for this API');
      if (claims.iss !== undefined && claims.iss !== options.issuer) throw invalidToken(options.realm, 'the access token was not issued by the trusted issuer');
      const tokenType = claims.token_type?.toLowerCase();
      if (tokenType !== undefined && tokenType !== 'bearer' && tokenType !== 'dpop') {
        throw invalidToken(options.realm, 'the token is not an access token');
      }
      const jkt = claims.cnf?.jkt;
      // A confirmation without a DPoP key (a certificate binding, RFC 8705) is not one this API can check.
      if ((tokenType === 'dpop' || claims.cnf !== undefined) && jkt === undefined) throw invalidToken(options.realm, 'the access token lacks a valid cnf claim');
      const now = options.clock();
      const expiresAt = claims.exp === undefined ? Infinity : claims.exp * 1000 + leewayMs;
      if (now >= expiresAt) throw invalidToken(options.realm, 'the access token expired');
      return {
        principal: {
          subject: claims.sub,
          clientId: claims.client_id,
          scopes: new Set(parseScope(claims.scope)),
          groups: claims.groups ?? [],
          ...(jkt === undefined ? {} : { jkt }),
        },
        validUntil: Math.min(expiresAt, now + options.maxAgeMs),
        validFrom: 0,
        kid: undefined,
        revocation: { jti: claims.jti, sub: claims.sub, iat: claims.iat },
      };
    },
    async ready() {
      try {
        return (await options.discovery.get()).introspection_endpoint !== undefined;
      } catch {
        return false;
      }
    },
  };
}
