/**
 * The path shapes of the collection endpoints (docs/spec.md §4.1 "Resource operations" and §9 "Versioning"):
 * - `/api/<resource>` and `/api/<resource>/<id>`            (version from header, query or media type)
 * - `/api/v<n>/<resource>` and `/api/v<n>/<resource>/<id>`
 * - `/v<n>/<resource>` and `/v<n>/<resource>/<id>`
 * - `/rest/api/<version>/<resource>` and `/rest/api/<version>/<resource>/<id>`, `<version>` as `v<n>` or `<n>`
 * Segments are percent-decoded; anything else, including a trailing slash, matches nothing.
 * Answers are remembered per path (a bounded table of short values, emptied when full), since clients ask for
 * the same paths over and over.
 */

export interface MatchedPath {
  /** The version segment of the path, as written. */
  readonly pathVersion: string | undefined;
  readonly resource: string;
  /** The id segment as written, if the path names an item. */
  readonly idSegment: string | undefined;
  /** The path up to and including the resource, for building item and page links in the same scheme. */
  readonly collectionPath: string;
}

const VERSION_SEGMENT = /^v\d+$/i;

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

const REMEMBERED = 1024;
const REMEMBERED_LENGTH = 256;
const remembered = new Map<string, MatchedPath | null>();

export function matchPath(path: string): MatchedPath | undefined {
  if (path.length > REMEMBERED_LENGTH) return match(path);
  let answer = remembered.get(path);
  if (answer === undefined) {
    if (remembered.size >= REMEMBERED) remembered.clear();
    answer = match(path) ?? null;
    remembered.set(path, answer);
  }
  return answer ?? undefined;
}

function match(path: string): MatchedPath | undefined {
  const raw = path.split('/');
  if (raw[0] !== '' || raw.some((s, i) => i > 0 && s === '')) return undefined;
  const segments = raw.slice(1).map((s) => (s.includes('%') ? decode(s) : s));
  if (segments.some((s) => s === undefined || s.includes('/'))) return undefined;
  const s = segments as string[];
  let prefix: number;
  let pathVersion: string | undefined;
  if (s[0] === 'api' && s[1] !== undefined && VERSION_SEGMENT.test(s[1])) {
    prefix = 2;
    pathVersion = s[1];
  } else if (s[0] === 'api') {
    prefix = 1;
  } else if (s[0] !== undefined && VERSION_SEGMENT.test(s[0])) {
    prefix = 1;
    pathVersion = s[0];
  } else if (s[0] === 'rest' && s[1] === 'api' && s[2] !== undefined) {
    prefix = 3;
    pathVersion = s[2];
  } else {
    return undefined;
  }
  const rest = s.slice(prefix);
  if (rest.length < 1 || rest.length > 2) return undefined;
  const collectionPath = raw.slice(0, prefix + 2).join('/');
  return Object.freeze({ pathVersion, resource: rest[0]!, idSegment: rest[1], collectionPath });
}
