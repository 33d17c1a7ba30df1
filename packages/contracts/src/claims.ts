import { z } from 'zod';

const audience = z.union([z.string(), z.array(z.string()).nonempty()]);
const epochSeconds = z.number().int().nonnegative();

/** Claims of the ID token issued by the authorization server (docs/spec.md §2.4 "Claims in the ID token"). */
export const IdTokenClaims = z.object({
  iss: z.string().url(),
  sub: z.string().min(1),
  aud: audience,
  exp: epochSeconds,
  iat: epochSeconds,
  nonce: z.string().optional(),
  email: z.string().email(),
  name: z.string(),
  groups: z.array(z.string()),
  amr: z.array(z.string()).nonempty(),
  auth_time: epochSeconds.optional(),
});
export type IdTokenClaims = z.infer<typeof IdTokenClaims>;

/** Claims of a JWT access token (RFC 9068, docs/spec.md §2.5 "Claims usually present in a JWT access token"). */
export const AccessTokenClaims = z.object({
  iss: z.string().url(),
  sub: z.string().min(1),
  aud: audience,
  exp: epochSeconds,
  iat: epochSeconds,
  scope: z.string(),
  client_id: z.string().min(1),
  groups: z.array(z.string()),
  jti: z.string().min(1),
});
export type AccessTokenClaims = z.infer<typeof AccessTokenClaims>;

/** RFC 7662 introspection response (active or not). */
export const IntrospectionResponse = z.object({
  active: z.boolean(),
  sub: z.string().optional(),
  client_id: z.string().optional(),
  scope: z.string().optional(),
  aud: audience.optional(),
  iss: z.string().optional(),
  exp: epochSeconds.optional(),
  iat: epochSeconds.optional(),
  token_type: z.string().optional(),
  groups: z.array(z.string()).optional(),
  jti: z.string().optional(),
  username: z.string().optional(),
  /** The key a DPoP-bound token is bound to (RFC 9449 §6.2); `token_type` is then `DPoP`. */
  cnf: z.object({ jkt: z.string().min(1).optional() }).optional(),
});
export type IntrospectionResponse = z.infer<typeof IntrospectionResponse>;
