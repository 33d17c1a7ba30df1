/**
 * Checks a DPoP proof sent with an access token to a protected resource (RFC 9449 §4.3, §7.1).
 * Rules, in the order they run:
 * - exactly one `DPoP` header holding one JWT (a repeated header is refused);
 * - header `typ` is `dpop+jwt`, `alg` one of the allowed asymmetric algorithms (never `none` or HMAC),
 *   `jwk` a public key (a private member such as `d` is refused) that verifies the signature;
 * - `jti` is a non-empty string of at most 256 characters, `iat` a number;
 * - `htm` equals the request method, `htu` the request URL as the client sees it, both without
 *   query and fragment (compared after URL normalisation);
 * - `iat` lies within `windowSeconds` of now, before or after;
 * - `ath` is the base64url SHA-256 of the access token;
 * - the key's JWK SHA-256 thumbprint (RFC 7638) is the token's `cnf.jkt`;
 * - the `jti` was not seen before with this key: `remember` records it until the end of the iat
 *   window (after which the proof is refused on `iat` anyway) and answers false for a replay.
 * A `nonce` claim is not checked: no server-provided nonce is issued (the replay record and the
 * iat window bound what a captured proof can do).
 * Every refusal is a {@link DpopProofError} with a stable code and a fixed description.
 */
import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, EmbeddedJWK, errors, jwtVerify, type JWTPayload } from 'jose';

/** Why a proof was refused. */
export type DpopProofFailure = 'missing' | 'malformed' | 'signature' | 'claims' | 'htm' | 'htu' | 'iat' | 'ath' | 'jkt' | 'replay';

/** A refused DPoP proof: `code` says which rule, `message` is a fixed description safe to send. */
export class DpopProofError extends Error {
  readonly code: DpopProofFailure;
  constructor(code: DpopProofFailure, message: string) {
    super(message);
    this.name = 'DpopProofError';
    this.code = code;
  }
}

/** What a proof must match. */
export interface DpopProofExpectation {
  /** The `DPoP` request header as received (undefined when absent). */
  readonly proof: string | string[] | undefined;
  /** The request method. */
  readonly method: string;
  /** The request URL as the client addressed it (any query or fragment is ignored). */
  readonly url: string;
  /** The access token the proof accompanies. */
  readonly accessToken: string;
  /** The token's `cnf.jkt`. */
  readonly jkt: string;
  /** Allowed JWS algorithms, all asymmetric. */
  readonly algorithms: readonly string[];
  /** Now, epoch milliseconds. */
  readonly now: number;
  /** How far `iat` may be from now, seconds. */
  readonly windowSeconds: number;
  /** Records a proof's `jti` for its key until `expiresAt` (epoch ms); false when it was recorded already. */
  readonly remember: (jkt: string, jti: string, expiresAt: number) => Promise<boolean>;
}

/** What an accepted proof said. */
export interface DpopProof {
  readonly jti: string;
  /** Epoch seconds. */
  readonly iat: number;
}

const COMPACT_JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** The URL without query and fragment, normalised; undefined when it does not parse. */
function targetUri(url: string): string | undefined {
  const parsed = URL.parse(url);
  if (!parsed) return undefined;
  parsed.search = '';
  parsed.hash = '';
  return parsed.href;
}

/** Verifies a DPoP proof; resolves with its jti and iat, or rejects with a {@link DpopProofError}. */
export async function verifyDpopProof(expected: DpopProofExpectation): Promise<DpopProof> {
  const { proof } = expected;
  if (proof === undefined || proof === '') throw new DpopProofError('missing', 'a DPoP proof is required with this access token');
  if (typeof proof !== 'string' || !COMPACT_JWT.test(proof)) throw new DpopProofError('malformed', 'the DPoP header must hold exactly one proof JWT');

  let payload: JWTPayload;
  let jwk: Record<string, unknown>;
  try {
    const result = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [...expected.algorithms], currentDate: new Date(expected.now) });
    payload = result.payload;
    jwk = result.protectedHeader.jwk as Record<string, unknown>;
  } catch (error) {
    if (error instanceof errors.JOSEAlgNotAllowed) throw new DpopProofError('signature', 'the DPoP proof is signed with an algorithm that is not allowed');
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'typ') throw new DpopProofError('malformed', 'the DPoP proof must have typ dpop+jwt');
    if (error instanceof errors.JWSSignatureVerificationFailed) throw new DpopProofError('signature', 'the DPoP proof signature is invalid');
    // EmbeddedJWK refuses a missing or private key; jose a token that is not a JWS.
    throw new DpopProofError('malformed', 'the DPoP proof is malformed or its jwk header is not a public key');
  }

  const { jti, iat, htm, htu, ath } = payload;
  if (typeof jti !== 'string' || jti === '' || jti.length > 256 || typeof iat !== 'number') {
    throw new DpopProofError('claims', 'the DPoP proof lacks a valid jti or iat claim');
  }
  if (htm !== expected.method) throw new DpopProofError('htm', 'the DPoP proof htm does not match the request method');
  if (typeof htu !== 'string' || targetUri(htu) === undefined || targetUri(htu) !== targetUri(expected.url)) {
    throw new DpopProofError('htu', 'the DPoP proof htu does not match the request URL');
  }
  if (Math.abs(expected.now - iat * 1000) > expected.windowSeconds * 1000) {
    throw new DpopProofError('iat', 'the DPoP proof iat is outside the accepted window');
  }
  if (ath !== createHash('sha256').update(expected.accessToken).digest('base64url')) {
    throw new DpopProofError('ath', 'the DPoP proof ath does not match the access token');
  }
  if ((await calculateJwkThumbprint(jwk, 'sha256')) !== expected.jkt) {
    throw new DpopProofError('jkt', 'the DPoP proof key is not the key the access token is bound to');
  }
  if (!(await expected.remember(expected.jkt, jti, (iat + expected.windowSeconds) * 1000))) {
    throw new DpopProofError('replay', 'the DPoP proof was used before');
  }
  return { jti, iat };
}
