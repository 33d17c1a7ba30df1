/**
 * Local validation of JWT access tokens (RFC 9068). Rules:
 * - signature by a key of the issuer's JWKS, with an algorithm from {@link ALLOWED_ALGORITHMS}
 *   (never `none`, never HMAC: the API holds no shared secret with the authorization server);
 * - header `typ` is `at+jwt` (`application/at+jwt`);
 * - `iss` equals the configured issuer, `aud` contains this API's audience;
 * - `exp` is required, `nbf` honoured, both with the configured leeway against the injected clock;
 * - `sub`, `client_id`, `iat` and `jti` are required (RFC 9068 §2.2);
 * - a `cnf` claim, when present, must hold a `jkt` string: the token is then DPoP-bound, and the
 *   principal carries it for the proof check (dpop-binding.ts);
 * - every refusal is 401 invalid_token with a fixed description; a JWKS that cannot be loaded
 *   at all is 503, since the token may well be good.
 */
import { errors, jwtVerify, type JWTPayload } from 'jose';
import { parseScope } from '@gatehouse/contracts';
import { authorizationServerUnavailable, invalidToken } from './challenges.ts';
import { DiscoveryError } from './discovery.ts';
import { JwksError, type JwksCache } from './jwks-cache.ts';
import type { TokenVerifier, VerifiedToken } from './principal.ts';

export const ALLOWED_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;

function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the access token expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'aud':
        return 'the access token was not issued for this API';
      case 'iss':
        return 'the access token was not issued by the trusted issuer';
      case 'typ':
        return 'the token is not an access token (typ must be at+jwt)';
      case 'nbf':
        return 'the access token is not valid yet';
      default:
        return `the access token lacks a valid ${error.claim} claim`;
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the access token is signed with an algorithm that is not allowed';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the access token signature is invalid';
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return 'the access token is signed with an unknown key';
  }
  return 'the access token is malformed';
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The `cnf.jkt` of a token: undefined without `cnf`, null when `cnf` is there without a usable `jkt`. */
function confirmationKey(cnf: unknown): string | undefined | null {
  if (cnf === undefined) return undefined;
  const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as { jkt?: unknown }).jkt : undefined;
  return typeof jkt === 'string' && jkt !== '' ? jkt : null;
}

export function createJwtVerifier(options: {
  issuer: string;
  audience: string;
  realm: string;
  clockToleranceSeconds: number;
  clock: () => number;
  jwks: JwksCache;
}): TokenVerifier {
  const leewayMs = options.clockToleranceSeconds * 1000;
  return {
    async verify(token): Promise<VerifiedToken> {
      let payload: JWTPayload;
      let kid: string | undefined;
      try {
        const result = await jwtVerify(token, (header, jws) => options.jwks.getKey(header, jws), {
          issuer: options.issuer,
          audience: options.audience,
          algorithms: [...ALLOWED_ALGORITHMS],
          typ: 'at+jwt',
          clockTolerance: options.clockToleranceSeconds,
          currentDate: new Date(options.clock()),
          requiredClaims: ['exp', 'iat', 'sub', 'client_id', 'jti'],
        });
        payload = result.payload;
        kid = result.protectedHeader.kid;
      } catch (error) {
        if (error instanceof DiscoveryError || error instanceof JwksError) throw authorizationServerUnavailable();
        throw invalidToken(options.realm, describe(error));
      }
      if (payload.scope !== undefined && typeof payload.scope !== 'string') throw invalidToken(options.realm, 'the access token lacks a valid scope claim');
      if (typeof payload.client_id !== 'string') throw invalidToken(options.realm, 'the access token lacks a valid client_id claim');
      const jkt = confirmationKey(payload.cnf);
      if (jkt === null) throw invalidToken(options.realm, 'the access token lacks a valid cnf claim');
      return {
        principal: {
          subject: payload.sub,
          clientId: payload.client_id,
          scopes: new Set(parseScope(payload.scope as string | undefined)),
          groups: stringArray(payload.groups),
          ...(jkt === undefined ? {} : { jkt }),
        },
        validUntil: payload.exp! * 1000 + leewayMs,
        validFrom: typeof payload.nbf === 'number' ? payload.nbf * 1000 - leewayMs : 0,
        kid,
        revocation: {
          jti: payload.jti,
          grantId: typeof payload.grant_id === 'string' ? payload.grant_id : undefined,
          sub: payload.sub,
          iat: payload.iat,
        },
      };
    },
    async ready() {
      try {
        await options.jwks.load();
        return true;
      } catch {
        return false;
      }
    },
  };
}
