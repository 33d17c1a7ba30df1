/**
 * The consent page's words for what a client asks. Rules:
 * - the OpenID scopes and the admin API's scopes have a sentence each;
 * - an API scope `<collection>:read` / `<collection>:write` reads "View your <collection>" /
 *   "Create, change and delete your <collection>";
 * - any other scope is shown by its name, so nothing asked for is ever hidden;
 * - `openid` alone is "Know who you are", said once whatever else is asked.
 */
import type { AdminScope } from '../policy/admin-scopes.ts';

export interface ScopeDescription {
  scope: string;
  description: string;
}

const OIDC_WORDS: Record<string, string> = {
  openid: 'Know who you are (your Gatehouse user id)',
  profile: 'See your name and username',
  email: 'See your email address',
  groups: 'See the groups you belong to',
  offline_access: 'Stay connected when you are not using it (until you revoke it here or on your account page)',
};

const ADMIN_WORDS: Record<AdminScope, string> = {
  'admin:users:read': 'See the user accounts of this Gatehouse',
  'admin:users:write': 'Create, change and disable user accounts',
  'admin:clients:write': 'Register, change and remove applications',
  'admin:keys': 'Rotate the signing keys',
  'admin:audit:read': 'Read the audit trail',
  'admin:identity-providers:write': 'Add, change and remove the identity providers users sign in with',
};

const COLLECTION_SCOPE = /^([a-z][a-z0-9_-]*):(read|write)$/;

export function describeScope(scope: string): ScopeDescription {
  const known = Object.hasOwn(OIDC_WORDS, scope) ? OIDC_WORDS[scope] : Object.hasOwn(ADMIN_WORDS, scope) ? ADMIN_WORDS[scope as AdminScope] : undefined;
  if (known) return { scope, description: known };
  const collection = COLLECTION_SCOPE.exec(scope);
  if (collection) {
    const [, name, access] = collection;
    return { scope, description: access === 'read' ? `View your ${name}` : `Create, change and delete your ${name}` };
  }
  return { scope, description: scope };
}

/** The descriptions of `scopes`, in the order asked, each scope once. */
export function describeScopes(scopes: readonly string[]): ScopeDescription[] {
  return [...new Set(scopes)].map(describeScope);
}
