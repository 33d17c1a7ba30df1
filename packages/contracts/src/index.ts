export { TokenResponse, OAuthError } from './token-response.ts';
export { IdTokenClaims, AccessTokenClaims, IntrospectionResponse } from './claims.ts';
export { ProblemDetails } from './problem.ts';
export {
  OIDC_SCOPES,
  DEFAULT_COLLECTIONS,
  DEFAULT_API_SCOPES,
  DEFAULT_API_AUDIENCE,
  readScope,
  writeScope,
  parseScope,
} from './scopes.ts';
export type { OidcScope } from './scopes.ts';
export { AUTH_ROUTES, CLIENT_ROUTES, API_ROUTES } from './routes.ts';
export { DEV_DEFAULTS } from './dev-defaults.ts';
export { DEV_TOPOLOGY, DEV_CLIENT_IDS } from './dev-topology.ts';
export type { DevClientId } from './dev-topology.ts';
export { RevocationEvent, RevocationFeedPage } from './revocation-event.ts';
export { DPOP_SIGNING_ALGORITHMS } from './dpop.ts';
