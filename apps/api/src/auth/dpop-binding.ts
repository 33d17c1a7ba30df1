/**
 * Whether a verified access token came the way its binding asks (RFC 9449 §7). Rules, in order:
 * - a token bound to a DPoP key (`cnf.jkt`) sent as `Bearer` is refused: 401 invalid_token in a
 *   DPoP challenge (a stolen bound token must not work as a bearer token);
 * - a token without a binding sent as `DPoP` is refused: 401 invalid_token in a DPoP challenge;
 * - a bound token sent as `DPoP` needs one valid DPoP proof (@gatehouse/http verifyDpopProof: typ,
 *   asymmetric alg from DPOP_SIGNING_ALGORITHMS, public jwk, signature, htm, htu, iat window,
 *   ath, the key's thumbprint equal to `cnf.jkt`); else 401 invalid_dpop_proof;
 * - `htu` is compared with the URL the client addressed: the configured public origin
 *   (API_PUBLIC_URL, never the request's Host or X-Forwarded-*) and the request path;
 * - a proof is accepted once: its jti is recorded in the API's database (dpop-proof-store.ts),
 *   which every instance shares, until its iat window ends; a second use is invalid_dpop_proof;
 * - a plain bearer token sent as `Bearer` passes untouched.
 */
import { DPOP_SIGNING_ALGORITHMS } from '@gatehouse/contracts';
import { DpopProofError, verifyDpopProof } from '@gatehouse/http';
import type { DpopProofStore } from '../storage/dpop-proof-store.ts';
import type { AccessCredential } from './bearer.ts';
import { invalidDpopProof, invalidToken } from './challenges.ts';
import type { Principal } from './principal.ts';

/** The parts of a request a DPoP proof is checked against. */
export interface ProofTarget {
  readonly method: string;
  /** The request path, without the query string. */
  readonly path: string;
  /** The `DPoP` request header(s) as received. */
  readonly proof: string | string[] | undefined;
}

export interface DpopBinding {
  /** Resolves when the credential's scheme suits the token; rejects with the refusal otherwise. */
  check(credential: AccessCredential, principal: Principal, request: ProofTarget): Promise<void>;
}

export function createDpopBinding(options: {
  store: Pick<DpopProofStore, 'remember'>;
  clock: () => number;
  /** How far a proof's iat may be from now, seconds. */
  windowSeconds: number;
  /** The origin clients reach the API at (API_PUBLIC_URL). */
  publicUrl: string;
  realm: string;
}): DpopBinding {
  const remember = options.store.remember.bind(options.store);
  return {
    async check(credential, principal, request) {
      const { jkt } = principal;
      if (jkt === undefined) {
        if (credential.scheme === 'DPoP') throw invalidToken(options.realm, 'the access token is not bound to a DPoP key; send it as Bearer', 'DPoP');
        return;
      }
      if (credential.scheme === 'Bearer') throw invalidToken(options.realm, 'the access token is bound to a DPoP key; send it as DPoP with a DPoP proof', 'DPoP');
      try {
        await verifyDpopProof({
          proof: request.proof,
          method: request.method,
          url: `${options.publicUrl}${request.path}`,
          accessToken: credential.token,
          jkt,
          algorithms: DPOP_SIGNING_ALGORITHMS,
          now: options.clock(),
          windowSeconds: options.windowSeconds,
          remember,
        });
      } catch (error) {
        if (error instanceof DpopProofError) throw invalidDpopProof(options.realm, error.message);
        throw error;
      }
    },
  };
}
