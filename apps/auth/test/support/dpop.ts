/** DPoP keys and proofs (RFC 9449 §4.2) for the tests of the authorization server and of the API. */
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/** A client's DPoP key pair, and proofs made with it (RFC 9449 §4.2); any claim or header can be overridden to build a bad proof. */
export interface DpopKey {
  readonly jwk: JWK;
  /** The key's SHA-256 JWK thumbprint (what a bound token's cnf.jkt holds). */
  readonly jkt: string;
  proof(
    method: string,
    url: string,
    options?: { accessToken?: string; iat?: number; claims?: Record<string, unknown>; header?: Record<string, unknown> },
  ): Promise<string>;
}

export async function dpopKey(alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return {
    jwk,
    jkt: await calculateJwkThumbprint(jwk, 'sha256'),
    proof(method, url, options = {}) {
      const ath = options.accessToken === undefined ? {} : { ath: createHash('sha256').update(options.accessToken).digest('base64url') };
      return new SignJWT({ htm: method, htu: url, jti: randomUUID(), ...ath, ...options.claims })
        .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk, ...options.header })
        .setIssuedAt(options.iat ?? Math.floor(Date.now() / 1000))
        .sign(privateKey as CryptoKey);
    },
  };
}
