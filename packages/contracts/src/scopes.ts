import { DEV_TOPOLOGY } from './dev-topology.ts';

/** OpenID Connect scopes every client may ask for. */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'groups', 'offline_access'] as const;
export type OidcScope = (typeof OIDC_SCOPES)[number];

/** Scope guarding reads of an API collection. */
export const readScope = (resource: string): string => `${resource}:read`;
/** Scope guarding writes (POST, PUT, DELETE) of an API collection. */
export const writeScope = (resource: string): string => `${resource}:write`;

/** The collections the default API configuration declares. */
export const DEFAULT_COLLECTIONS = ['movies', 'customers', 'cars', 'users'] as const;

/** Read and write scopes of the default collections. */
export const DEFAULT_API_SCOPES: readonly string[] = DEFAULT_COLLECTIONS.flatMap((c) => [readScope(c), writeScope(c)]);

/** The audience (resource indicator) of the API's access tokens by default. */
export const DEFAULT_API_AUDIENCE = `${DEV_TOPOLOGY.api.url}/api`;

/** Splits a space-separated scope string into its distinct values. */
export function parseScope(scope: string | undefined | null): string[] {
  if (!scope) return [];
  return [...new Set(scope.split(' ').filter(Boolean))];
}
