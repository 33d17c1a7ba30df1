/**
 * The JWS algorithms a DPoP proof (RFC 9449) may be signed with, at the token endpoint, userinfo
 * and the API alike: asymmetric only, each one the authorization server's discovery lists as
 * `dpop_signing_alg_values_supported` and the resource server names in its `algs` challenge.
 */
export const DPOP_SIGNING_ALGORITHMS = ['ES256', 'PS256', 'RS256', 'Ed25519', 'EdDSA'] as const;
