/**
 * The `route` label of the authorization server's request metrics. Rules:
 * - a label is a declared pattern, never a requested path (interaction uids, push ids and tokens
 *   stay out of labels); anything else is `other`;
 * - the protocol's endpoints (the contract's AUTH_ROUTES and oidc-provider's own paths) are named
 *   here; each feature's route group declares the patterns it serves, and composition (app.ts)
 *   hands those lists in, so this file imports no feature folder;
 * - the first pattern that matches names the path: the protocol's first, then the groups in the
 *   order given.
 */
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { routeTable, type RouteNamer } from '@gatehouse/metrics';

const PROTOCOL_ROUTES: readonly string[] = [
  AUTH_ROUTES.health,
  AUTH_ROUTES.ready,
  AUTH_ROUTES.discovery,
  AUTH_ROUTES.authorize,
  `${AUTH_ROUTES.authorize}/:uid`,
  AUTH_ROUTES.token,
  AUTH_ROUTES.jwks,
  AUTH_ROUTES.userinfo,
  AUTH_ROUTES.introspect,
  AUTH_ROUTES.revoke,
  AUTH_ROUTES.revocations,
  AUTH_ROUTES.logout,
  `${AUTH_ROUTES.logout}/confirm`,
  `${AUTH_ROUTES.logout}/success`,
  '/interaction/:uid',
  AUTH_ROUTES.login,
  AUTH_ROUTES.mfaVerify,
  AUTH_ROUTES.deviceAuthorize,
  AUTH_ROUTES.activate,
  `${AUTH_ROUTES.activate}/:uid`,
];

/** Names a request path by the protocol's routes and the route patterns of each feature group. */
export function authRouteName(groups: readonly (readonly string[])[]): RouteNamer {
  return routeTable([...PROTOCOL_ROUTES, ...groups.flat()]);
}
