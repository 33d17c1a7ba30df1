/**
 * The admin API's scopes (docs/spec.md, admin API) and who may be granted them. Rules (a secure
 * default, unlike the API scopes, which are open until an operator restricts them):
 * - an admin scope is granted to a client only if the client's allowed scopes (`authctl client
 *   scopes`) list it explicitly; a client without a limit gets none;
 * - in a user's grant (authorization code, refresh) only if the user is in group `admins`,
 *   and the client lists it as above;
 * - a client_credentials token has no user: only the client's list applies.
 */
export const ADMIN_SCOPES = ['admin:users:read', 'admin:users:write', 'admin:clients:write', 'admin:keys', 'admin:audit:read', 'admin:identity-providers:write'] as const;

export type AdminScope = (typeof ADMIN_SCOPES)[number];

/** The group whose users may be granted admin scopes, and who may use the admin console (/admin). */
export const ADMIN_GROUP = 'admins';

/**
 * The group whose users may read everything in the admin console and change nothing
 * (console/console-access.ts); it grants no admin scope.
 */
export const READ_ONLY_ADMIN_GROUP = 'auditors';

const ADMIN_SET: ReadonlySet<string> = new Set(ADMIN_SCOPES);

export function isAdminScope(scope: string): scope is AdminScope {
  return ADMIN_SET.has(scope);
}

/** The admin API's audience: the resource indicator of its tokens. */
export function adminAudience(issuer: string): string {
  return `${issuer}/admin/v1`;
}
