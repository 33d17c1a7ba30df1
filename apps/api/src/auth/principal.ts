import type { RevocationKeys } from './revocation-list.ts';

/** Who a verified access token speaks for, and what it may do. */
export interface Principal {
  readonly subject: string | undefined;
  readonly clientId: string | undefined;
  readonly scopes: ReadonlySet<string>;
  readonly groups: readonly string[];
  /**
   * The SHA-256 thumbprint of the key a DPoP-bound token is bound to (`cnf.jkt`, RFC 9449 §6);
   * absent for a bearer token. A bound token is accepted only with a proof by that key (dpop-binding.ts).
   */
  readonly jkt?: string;
}

/** A successful token check: the principal and the window (epoch ms) in which a fresh check would also accept the token. */
export interface VerifiedToken {
  readonly principal: Principal;
  /** A fresh check refuses the token from this instant on (exp plus leeway, or an earlier bound). */
  readonly validUntil: number;
  /** A fresh check refuses the token before this instant (nbf minus leeway), or 0. */
  readonly validFrom: number;
  /** The `kid` of the key that signed it (JWT mode), so the entry can be dropped if the key disappears. */
  readonly kid: string | undefined;
  /** What the revocation feed can name the token by (jti, grant, subject and issue time). */
  readonly revocation?: RevocationKeys;
}

/** Checks one access token; rejects with an {@link ApiError} (invalid_token, or 503 when the authorization server cannot be reached). */
export interface TokenVerifier {
  verify(token: string): Promise<VerifiedToken>;
  /** Loads what verification needs (discovery, JWKS); resolves false when that failed. */
  ready(): Promise<boolean>;
}
