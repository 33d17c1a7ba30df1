/**
 * Request targets (method, path, query) built from an app's route list. Rules:
 * - a route is a template such as `/items/:id/delete`; each `:param` is filled with a value from
 *   the route's own examples (when given) or a hostile path segment;
 * - most paths are then mutated: traversal, encoded and doubled slashes, trailing slashes, NUL,
 *   case changes, matrix parameters, backslashes, absolute-form and asterisk targets;
 * - a query string repeats names, uses `a[]` / `a[b]` and prototype names, and may be huge;
 * - methods are mostly the route's own, sometimes any other (lower case and invented ones included).
 *   CONNECT is left out: Node closes such connections without an answer unless a `connect` listener exists.
 */
import fc from 'fast-check';
import { encodeURIComponentLoose, pathSegment, PROTOTYPE_NAMES, queryValue, sometimes } from './adversarial-values.ts';

/** One route of the app under test. */
export interface RouteSpec {
  /** Path template; `:name` segments are parameters. */
  readonly path: string;
  /** Methods the route serves (default GET). */
  readonly methods?: readonly string[];
  /** Plausible values per parameter, mixed with hostile ones. */
  readonly params?: Readonly<Record<string, readonly string[]>>;
  /** Query parameter names the route reads. */
  readonly query?: readonly string[];
  /** Plausible values per query parameter (e.g. a real pending `state`), mixed with hostile ones. */
  readonly queryValues?: Readonly<Record<string, readonly string[]>>;
  /** Path parameters only from `params` and no path mutation: to reach deep code with hostile headers and bodies. */
  readonly exact?: boolean;
}

/** Methods an attacker may send. */
export const ANY_METHOD: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'PURGE', 'SEARCH', 'QUERY', 'get', 'Post', 'FOO', 'M-SEARCH'];

/** Mostly the route's own methods, sometimes any other. */
export function methodFor(route: RouteSpec): fc.Arbitrary<string> {
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...(route.methods ?? ['GET'])) }, { weight: 1, arbitrary: fc.constantFrom(...ANY_METHOD) });
}

function fillParams(route: RouteSpec): fc.Arbitrary<string> {
  const parts = route.path.split('/');
  return fc.tuple(
    ...parts.map((part) => {
      if (!part.startsWith(':')) return fc.constant(part);
      const examples = route.params?.[part.slice(1)] ?? [];
      if (examples.length > 0 && route.exact) return fc.constantFrom(...examples);
      return examples.length > 0 ? fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...examples) }, { weight: 1, arbitrary: pathSegment }) : pathSegment;
    }),
  ).map((filled) => filled.join('/'));
}

type Mutation = (path: string) => string;

const MUTATIONS: readonly Mutation[] = [
  (p) => `${p}/`,
  (p) => p.replace(/^\//, '//'),
  (p) => p.replace(/\/([^/]*)$/, '//$1'),
  (p) => `/..${p}`,
  (p) => `${p}/..`,
  (p) => `${p}/../..`,
  (p) => p.replace(/\/([^/]+)\//, '/$1/../$1/'),
  (p) => p.replace(/\/([^/]+)\//, '/./$1/'),
  (p) => p.replace(/\/([^/]+)\/([^/]+)/, '/$1%2f$2'),
  (p) => p.replace(/\/([^/]+)\/([^/]+)/, '/$1%2F$2'),
  (p) => p.replace(/\//g, '\\'),
  (p) => `${p}%00`,
  (p) => `${p}%00.json`,
  (p) => `${p};x=1`,
  (p) => `${p}.json`,
  (p) => p.toUpperCase(),
  (p) => `${p}/%2e%2e/%2e%2e/etc/passwd`,
  (p) => `${p}/..%2f..%2fetc%2fpasswd`,
  (p) => p.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`),
  (p) => `http://127.0.0.1${p}`,
  (p) => `http://evil.example${p}`,
  () => '*',
  (p) => p.slice(1),
  (p) => `${p}/\u00e9\u0301`,
  (p) => `${p}/${encodeURIComponentLoose('\u202e\u0000')}`,
];

/** A path for one of the routes, filled and often mutated. */
export function pathFor(route: RouteSpec): fc.Arbitrary<string> {
  if (route.exact) return fillParams(route);
  return fc.tuple(fillParams(route), sometimes(fc.constantFrom(...MUTATIONS), 4)).map(([path, mutate]) => (mutate ? mutate(path) : path));
}

/** A query string (with its leading `?`, or empty). */
export function queryFor(route: RouteSpec): fc.Arbitrary<string> {
  const known = route.query ?? [];
  const name = fc.oneof(
    ...(known.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...known) }] : []),
    { weight: 1, arbitrary: fc.constantFrom('a[]', 'a[b]', 'a[b][c]', 'a[0]', ...PROTOTYPE_NAMES, '__proto__[polluted]', 'constructor[prototype][polluted]', '', '%', '%00', 'a%00b') },
    { weight: 1, arbitrary: fc.stringMatching(/^[a-z_]{1,10}$/) },
    ...known.map((k) => ({ weight: 1, arbitrary: fc.constantFrom(`${k}[]`, `${k}[0]`, `${k}[x]`, k.toUpperCase()) })),
  );
  const generic = fc.tuple(name, queryValue, fc.constantFrom('=', '=', '=', '', '==')).map(([n, v, eq]) => (eq === '' ? n : `${n}${eq}${v}`));
  const examples = Object.entries(route.queryValues ?? {}).filter(([, values]) => values.length > 0);
  const pair =
    examples.length === 0
      ? generic
      : fc.oneof(
          { weight: 2, arbitrary: generic },
          ...examples.map(([n, values]) => ({ weight: 2, arbitrary: fc.constantFrom(...values).map((v) => `${n}=${encodeURIComponentLoose(v)}`) })),
        );
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant('') },
    { weight: 6, arbitrary: fc.array(pair, { minLength: 1, maxLength: 6 }).map((pairs) => `?${pairs.join('&')}`) },
    { weight: 1, arbitrary: fc.tuple(pair, fc.integer({ min: 50, max: 2_000 })).map(([p, n]) => `?${Array.from({ length: n }, () => p).join('&')}`) },
    { weight: 1, arbitrary: fc.constantFrom('?', '??', '?&', '?&&&=', '?=', '?#x', '?%', '?a=1;b=2') },
  );
}

/** Method and target (path plus query) for one of the routes; sometimes a path that is no route at all. */
export function targetFor(routes: readonly RouteSpec[]): fc.Arbitrary<{ method: string; path: string; route: RouteSpec | undefined }> {
  // One arbitrary per route, built once (building them per draw would dominate the run time).
  const known = fc.oneof(
    ...routes.map((route) => fc.tuple(methodFor(route), pathFor(route), queryFor(route)).map(([method, path, query]) => ({ method, path: `${path}${query}`, route }))),
  );
  const unknown = fc
    .tuple(fc.constantFrom(...ANY_METHOD), fc.array(pathSegment, { minLength: 0, maxLength: 4 }))
    .map(([method, segments]) => ({ method, path: `/${segments.join('/')}`, route: undefined }));
  return fc.oneof({ weight: 14, arbitrary: known }, { weight: 1, arbitrary: unknown });
}
