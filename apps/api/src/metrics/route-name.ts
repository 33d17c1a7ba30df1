/**
 * The `route` label of the API's request metrics. Rules:
 * - fixed routes are named by their path; a problem documentation page is `/problems/:code`;
 * - a collection path is named by its version scheme and shape (`/api/:version/:collection/:id`),
 *   never by the collection or id written in it, so an unknown collection cannot add series;
 * - anything else is `other`.
 */
import { API_ROUTES } from '@gatehouse/contracts';
import { OTHER_ROUTE, routeTable } from '@gatehouse/metrics';
import { matchPath } from '../items/match-path.ts';

const fixed = routeTable([API_ROUTES.health, API_ROUTES.ready, API_ROUTES.openapi, API_ROUTES.problems]);

function versionScheme(path: string, pathVersion: string | undefined): string {
  if (pathVersion === undefined) return '/api';
  if (path.startsWith('/api/')) return '/api/:version';
  if (path.startsWith('/rest/')) return '/rest/api/:version';
  return '/:version';
}

export function apiRouteName(path: string): string {
  const named = fixed(path);
  if (named !== OTHER_ROUTE) return named;
  if (path.startsWith(`${API_ROUTES.problems}/`)) return `${API_ROUTES.problems}/:code`;
  const match = matchPath(path);
  if (!match) return OTHER_ROUTE;
  return `${versionScheme(path, match.pathVersion)}/:collection${match.idSegment === undefined ? '' : '/:id'}`;
}
