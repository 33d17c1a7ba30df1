/**
 * Every path the admin API serves, below /admin/v1, in the router's and OpenAPI's syntax
 * (`/users/{id}`). The request metrics label admin requests with these patterns (never a
 * requested path: ids stay out of labels, http/route-name.ts); test/admin/framework.test.ts
 * checks that the router serves exactly these paths, so a new route is added here too.
 */
import { ADMIN_BASE } from './admin-router.ts';

export const ADMIN_PATHS = [
  '/openapi.json',
  '/users',
  '/users/{id}',
  '/users/{id}/disable',
  '/users/{id}/enable',
  '/users/{id}/unlock',
  '/users/{id}/password',
  '/users/{id}/second-factors/reset',
  '/users/{id}/sessions',
  '/users/{id}/signout-all',
  '/users/{id}/grants',
  '/users/{id}/grants/{grantId}',
  '/users/{id}/password-reset',
  '/keys',
  '/keys/rotate',
  '/clients',
  '/clients/{id}',
  '/clients/{id}/secret/rotate',
  '/identity-providers',
  '/identity-providers/{slug}',
  '/audit-events',
] as const;

/** The paths as metrics route patterns: `/admin/v1/users/:id`. */
export const ADMIN_ROUTE_PATTERNS: readonly string[] = ADMIN_PATHS.map((path) => `${ADMIN_BASE}${path.replace(/\{(\w+)\}/g, ':$1')}`);
