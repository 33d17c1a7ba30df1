/**
 * Whether a JWT access token came to userinfo the way its binding asks (RFC 9449 §7). Rules:
 * - a token bound to a DPoP key (`cnf.jkt`) sent as `Bearer` is refused (invalid_token): a stolen
 *   bound token must not work as a bearer token;
 * - a token without a binding sent as `DPoP` is refused (invalid_token);
 * - a bound token sent as `DPoP` needs one valid DPoP proof (@gatehouse/http verifyDpopProof:
 *   typ, an algorithm of DPOP_SIGNING_ALGORITHMS, a public jwk, signature, htm, htu, iat within
 *   {@link PROOF_WINDOW_SECONDS}, ath, the key's thumbprint equal to `cnf.jkt`); else invalid_dpop_proof;
 * - `htu` is compared with the issuer's userinfo URL (the public origin, never the request's Host);
 * - a proof is used once: its jti is recorded through oidc-provider's ReplayDetection (the
 *   database every instance shares, replay-detection.ts) until its iat window ends.
 * Refusals are answered by the caller (jwt-userinfo.ts) in a DPoP challenge.
 */
import { AUTH_ROUTES, DPOP_SIGNING_ALGORITHMS } from '@gatehouse/contracts';
import { DpopProofError, verifyDpopProof } from '@gatehouse/http';

/** How far a proof's iat may be from now, seconds: the API's default window too. */
export const PROOF_WINDOW_SECONDS = 60;

export interface UserinfoDpopDeps {
  /** The issuer: the userinfo URL clients address is `<issuer>/oauth2/v1/userinfo`. */
  issuer: string;
  /** oidc-provider's ReplayDetection.unique: true the first time (iss, jti) is seen before `exp` (epoch seconds). */
  unique: (iss: string, jti: string, exp: number) => Promise<boolean>;
  clock: () => number;
}

/** A refusal: the OAuth error and its fixed description. */
export interface BindingRefusal {
  readonly error: 'invalid_token' | 'invalid_dpop_proof';
  readonly description: string;
}

export interface UserinfoRequest {
  readonly scheme: 'Bearer' | 'DPoP';
  readonly token: string;
  readonly method: string;
  readonly proof: string | string[] | undefined;
}

/** Checks the binding of one request; resolves undefined when it is right. */
export function userinfoDpop(deps: UserinfoDpopDeps): (request: UserinfoRequest, jkt: string | undefined) => Promise<BindingRefusal | undefined> {
  const url = `${deps.issuer}${AUTH_ROUTES.userinfo}`;
  return async (request, jkt) => {
    if (jkt === undefined) {
      return request.scheme === 'DPoP' ? { error: 'invalid_token', description: 'the access token is not bound to a DPoP key; send it as Bearer' } : undefined;
    }
    if (request.scheme === 'Bearer') return { error: 'invalid_token', description: 'the access token is bound to a DPoP key; send it as DPoP with a DPoP proof' };
    try {
      await verifyDpopProof({
        proof: request.proof,
        method: request.method,
        url,
        accessToken: request.token,
        jkt,
        algorithms: DPOP_SIGNING_ALGORITHMS,
        now: deps.clock(),
        windowSeconds: PROOF_WINDOW_SECONDS,
        remember: (key, jti, expiresAt) => deps.unique(`dpop:${key}`, jti, Math.ceil(expiresAt / 1000)),
      });
      return undefined;
    } catch (error) {
      if (error instanceof DpopProofError) return { error: 'invalid_dpop_proof', description: error.message };
      throw error;
    }
  };
}
