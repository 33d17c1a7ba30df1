/**
 * A group of the app's own routes (routers, or a middleware such as the admin API) as one
 * middleware that is entered only by a request whose path could be theirs; `servedSegments`
 * names those paths' first segments (app.ts hands every other request to oidc-provider).
 * Rules:
 * - each part names the first path segments it serves: a router's are read from its routes when
 *   the group is built; a plain middleware (the admin API) names its own;
 * - a router given as `exact` serves only the literal paths of its routes, inside a first segment
 *   that oidc-provider serves (POST /oauth2/v1/logout/everywhere beside the provider's
 *   /oauth2/v1/logout): `servedPaths` names them, and the group is entered by those paths alone;
 * - a request whose first segment (compared without case, as @koa/router does by default) is
 *   none of them, and whose path is none of the exact paths (compared the same way), goes straight on to the next middleware (oidc-provider's endpoints, after the
 *   sign-in pages), untouched: no router of the group
 *   could have matched it, so none would have answered, set `Allow` or changed anything;
 * - a router with a route whose first segment is a parameter, a pattern or empty could match any
 *   path: the group then runs for every request (the same behaviour, without the shortcut);
 * - inside the group the parts run in the given order, each router's routes then its allowed
 *   methods, exactly as if each had been mounted on the app one after the other.
 * Why: mounted one by one, these middleware would each test the path of every token request and
 * every other OAuth request against their routes, a cost those endpoints never need (bench/README.md,
 * "Token path").
 */
import type Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';

/** A part of the group that is not a router: its middleware and the first segments it serves. */
export interface SegmentRoutes {
  readonly middleware: Middleware;
  /** First path segments, without slashes (`admin` for /admin/v1/...). */
  readonly segments: readonly string[];
}

/** A router whose routes are literal paths inside a first segment that oidc-provider serves. */
export interface ExactRoutes {
  readonly exact: Router;
}

export type RouteGroupPart = Router | SegmentRoutes | ExactRoutes;

const isRouter = (part: RouteGroupPart): part is Router => 'stack' in part && 'routes' in part;
const isExact = (part: RouteGroupPart): part is ExactRoutes => 'exact' in part;

/** The first segment of a path, lower-cased: `/Admin/v1/users` → `admin`. */
export function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return (end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase();
}

/** The first segments a router's routes can match, or undefined when one could match any path. */
function routerSegments(router: Router): string[] | undefined {
  const prefix = (router as Router & { opts?: { prefix?: string } }).opts?.prefix ?? '';
  const segments: string[] = [];
  for (const layer of router.stack) {
    const path = `${prefix}${typeof layer.path === 'string' ? layer.path : ''}`;
    const segment = path.startsWith('/') ? firstSegment(path) : '';
    if (segment === '' || /[^a-z0-9._~-]/.test(segment)) return undefined;
    segments.push(segment);
  }
  return segments;
}

/**
 * The first segments the parts serve, lower-cased, or undefined when a router has a route that
 * could match any path.
 */
export function servedSegments(parts: readonly RouteGroupPart[]): ReadonlySet<string> | undefined {
  const segments = new Set<string>();
  for (const part of parts) {
    if (isExact(part)) continue;
    const served = isRouter(part) ? routerSegments(part) : part.segments.map((segment) => segment.toLowerCase());
    if (served === undefined) return undefined;
    for (const segment of served) segments.add(segment);
  }
  return segments;
}

/**
 * The paths of the parts given as `exact`, lower-cased; a route of theirs that is not a literal
 * path (a parameter, a pattern) is refused when the group is built.
 */
export function servedPaths(parts: readonly RouteGroupPart[]): ReadonlySet<string> {
  const paths = new Set<string>();
  for (const part of parts) {
    if (!isExact(part)) continue;
    for (const layer of part.exact.stack) {
      if (typeof layer.path !== 'string' || !/^(\/[a-z0-9._~-]+)+$/i.test(layer.path)) throw new Error(`an exact route must be a literal path: ${String(layer.path)}`);
      paths.add(layer.path.toLowerCase());
    }
  }
  return paths;
}

export function routeGroup(parts: readonly RouteGroupPart[]): Middleware {
  const routerChain = (router: Router) => [router.routes() as unknown as Middleware, router.allowedMethods() as unknown as Middleware];
  const chain: Middleware[] = [];
  for (const part of parts) {
    if (isExact(part)) chain.push(...routerChain(part.exact));
    else if (isRouter(part)) chain.push(...routerChain(part));
    else chain.push(part.middleware);
  }
  const segments = servedSegments(parts);
  const paths = servedPaths(parts);
  const run = (ctx: Context, next: Next): Promise<unknown> => {
    const step = (index: number): Promise<unknown> => {
      const middleware = chain[index];
      if (middleware === undefined) return next();
      return Promise.resolve(middleware(ctx as never, () => step(index + 1)));
    };
    return step(0);
  };
  return async function appRoutes(ctx: Context, next: Next): Promise<void> {
    if (segments === undefined || segments.has(firstSegment(ctx.path)) || paths.has(ctx.path.toLowerCase())) await run(ctx, next);
    else await next();
  };
}
