/**
 * Content negotiation over `Accept` (RFC 9110 §12.5.1). Rules:
 * - the representations are JSON (default), XML and HTML; the vendor types
 *   `application/vnd.gatehouse.v<n>+json` and `+xml` select JSON or XML and name a version;
 * - each candidate takes the q-value of the most specific range that matches it;
 *   q=0 excludes it;
 * - the highest q wins; on a tie an explicit vendor type wins over a plain one, then
 *   the server's order JSON, XML, HTML;
 * - no Accept header, or an empty one, means JSON; nothing acceptable means 406.
 * Clients send the same few Accept values over and over, so answers are remembered per header
 * value (a bounded table of short values, emptied when full: a client sending endless variants costs itself a
 * parse per request, as before, and nothing more).
 */

export type Representation = 'json' | 'xml' | 'html';

export interface Negotiated {
  readonly representation: Representation;
  /** The version named by a vendor media type, if that is what was chosen. */
  readonly mediaTypeVersion: string | undefined;
  /** The Content-Type of a successful response. */
  readonly contentType: string;
}

export const BASE_TYPES: Readonly<Record<Representation, string>> = {
  json: 'application/json',
  xml: 'application/xml',
  html: 'text/html',
};
const ORDER: readonly Representation[] = ['json', 'xml', 'html'];
const VENDOR = /^application\/vnd\.gatehouse\.v([^+]*)\+(json|xml)$/;

interface Range {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

function parseAccept(header: string): Range[] {
  const ranges: Range[] = [];
  for (const part of header.split(',')) {
    const [media, ...params] = part.split(';');
    const [type, subtype] = (media ?? '').trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=').map((s) => s.trim());
      if (key?.toLowerCase() === 'q') {
        const parsed = Number(value);
        q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0;
      }
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

function qualityOf(mediaType: string, ranges: readonly Range[]): number {
  const [type, subtype] = mediaType.split('/') as [string, string];
  let best = -1;
  let bestSpecificity = -1;
  for (const r of ranges) {
    let specificity: number;
    if (r.type === type && r.subtype === subtype) specificity = 2;
    else if (r.type === type && r.subtype === '*') specificity = 1;
    else if (r.type === '*' && r.subtype === '*') specificity = 0;
    else continue;
    if (specificity > bestSpecificity) {
      bestSpecificity = specificity;
      best = r.q;
    }
  }
  return best;
}

const DEFAULT: Negotiated = Object.freeze({ representation: 'json', mediaTypeVersion: undefined, contentType: BASE_TYPES.json });
const REMEMBERED = 256;
const REMEMBERED_LENGTH = 256;
const remembered = new Map<string, Negotiated | null>();

/** Chooses the representation for `accept`, or undefined when none is acceptable. */
export function negotiate(accept: string | undefined): Negotiated | undefined {
  if (!accept) return DEFAULT;
  if (accept.length > REMEMBERED_LENGTH) return choose(accept);
  let answer = remembered.get(accept);
  if (answer === undefined) {
    if (remembered.size >= REMEMBERED) remembered.clear();
    answer = choose(accept) ?? null;
    remembered.set(accept, answer);
  }
  return answer ?? undefined;
}

function choose(accept: string): Negotiated | undefined {
  if (!accept.trim()) return DEFAULT;
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return DEFAULT;
  let chosen: Negotiated | undefined;
  let chosenQ = 0;
  for (const r of ranges) {
    const match = VENDOR.exec(`${r.type}/${r.subtype}`);
    if (!match || r.q <= chosenQ) continue;
    chosen = Object.freeze({ representation: match[2] as 'json' | 'xml', mediaTypeVersion: match[1], contentType: `${r.type}/${r.subtype}` });
    chosenQ = r.q;
  }
  for (const representation of ORDER) {
    const q = qualityOf(BASE_TYPES[representation], ranges);
    if (q > chosenQ) {
      chosen = Object.freeze({ representation, mediaTypeVersion: undefined, contentType: BASE_TYPES[representation] });
      chosenQ = q;
    }
  }
  return chosen;
}

/** Content-Type of a problem document in a representation. */
export const PROBLEM_TYPES: Readonly<Record<Representation, string>> = {
  json: 'application/problem+json',
  xml: 'application/problem+xml',
  html: 'text/html',
};

/**
 * The representation of an error: like {@link negotiate}, but `application/problem+json` and
 * `application/problem+xml` count too, and when nothing is acceptable the answer is JSON
 * (a 406 must still say why).
 */
export function negotiateProblem(accept: string | undefined): Representation {
  if (!accept) return 'json';
  const ranges = parseAccept(accept);
  const vendor = (suffix: string): number =>
    Math.max(-1, ...ranges.filter((r) => VENDOR.exec(`${r.type}/${r.subtype}`)?.[2] === suffix).map((r) => r.q));
  const scores: Array<[Representation, number]> = [
    ['json', Math.max(qualityOf(PROBLEM_TYPES.json, ranges), qualityOf(BASE_TYPES.json, ranges), vendor('json'))],
    ['xml', Math.max(qualityOf(PROBLEM_TYPES.xml, ranges), qualityOf(BASE_TYPES.xml, ranges), vendor('xml'))],
    ['html', qualityOf(BASE_TYPES.html, ranges)],
  ];
  let best: Representation = 'json';
  let bestQ = 0;
  for (const [representation, q] of scores) {
    if (q > bestQ) {
      best = representation;
      bestQ = q;
    }
  }
  return best;
}

/**
 * The representation of a documentation page (`/problems/<code>`): HTML, or JSON when the client
 * ranks JSON above HTML. Unlike data, documentation is for people first, so a tie, `*∕*` or no
 * Accept at all means HTML; undefined when neither is acceptable (406).
 */
export function negotiateDocumentation(accept: string | undefined): 'html' | 'json' | undefined {
  if (!accept?.trim()) return 'html';
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return 'html';
  const html = qualityOf(BASE_TYPES.html, ranges);
  const json = qualityOf(BASE_TYPES.json, ranges);
  if (html <= 0 && json <= 0) return undefined;
  return json > html ? 'json' : 'html';
}
