/**
 * Route labels. Rules:
 * - a label is one of the patterns the app declares (`/mfa/push/:id`), never the requested path,
 *   so ids, tokens and codes in a path never become label values and the series count is bounded;
 * - a `:name` segment matches exactly one non-empty segment; every other segment must be equal;
 * - the first matching pattern wins, in declaration order;
 * - a path no pattern matches is {@link OTHER_ROUTE}.
 */

/** The label of every path no declared route matches. */
export const OTHER_ROUTE = 'other';

/** Names the route of a request path, e.g. `/interaction/abc` → `/interaction/:uid`. */
export type RouteNamer = (path: string) => string;

/** Builds a {@link RouteNamer} from route patterns such as `/items/:id/delete`. */
export function routeTable(patterns: readonly string[]): RouteNamer {
  const compiled = patterns.map((pattern) => ({ pattern, segments: pattern.split('/') }));
  const byPattern = (path: string): string => {
    const segments = path.split('/');
    for (const route of compiled) {
      if (route.segments.length !== segments.length) continue;
      const matches = route.segments.every((expected, i) => {
        const actual = segments[i]!;
        return expected.startsWith(':') ? actual !== '' : expected === actual;
      });
      if (matches) return route.pattern;
    }
    return OTHER_ROUTE;
  };
  // Every request is named, most of them for a fixed path (the token endpoint): a path equal to a
  // pattern without parameters is found in one lookup, unless an earlier pattern names it first.
  const fixed = new Map<string, string>();
  for (const { pattern, segments } of compiled) {
    if (!segments.some((segment) => segment.startsWith(':')) && byPattern(pattern) === pattern) fixed.set(pattern, pattern);
  }
  return (path) => fixed.get(path) ?? byPattern(path);
}
