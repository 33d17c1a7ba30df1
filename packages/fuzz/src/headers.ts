/**
 * Header sets an attacker may send. Rules:
 * - every part is optional and drawn independently: Authorization (valid values supplied by the
 *   app, hostile ones, or several at once), Accept, API-Version, X-Forwarded-* and Forwarded
 *   (apps run without TRUST_PROXY in the fuzz, so these must change nothing), Origin, an oversized
 *   header, invented headers, and the app's own extra header sets (cookies, CSRF tokens, …);
 * - with `hostileHost`, odd Host headers (the sender adds the real one only when there is none);
 * - framing headers (Content-Length, Transfer-Encoding, Connection, …) are never produced: the
 *   sender sets them (see send-raw.ts);
 * - Content-Type travels with the body (see bodies.ts).
 */
import fc from 'fast-check';
import { asciiText, clean, controlText, sometimes } from './adversarial-values.ts';

export type HeaderList = readonly (readonly [string, string])[];

export interface HeaderOptions {
  /** Valid Authorization values (e.g. `Bearer <token>`), mixed with hostile ones. */
  readonly authorization?: readonly string[];
  /** Send exactly one of the valid `authorization` values on every request, never a hostile one (to reach deep paths). */
  readonly validAuthorizationOnly?: boolean;
  /** Media types the app serves, mixed with hostile Accept values. */
  readonly accept?: readonly string[];
  /** Whether to send API-Version headers (the API reads them). */
  readonly apiVersion?: boolean;
  /** More header sets from the app (cookies, CSRF tokens, …). */
  readonly extra?: fc.Arbitrary<HeaderList>;
  /** Also send odd Host headers (one in six requests): empty, foreign, malformed, over-long, twice. */
  readonly hostileHost?: boolean;
}

const HOSTS = ['', 'evil.example', 'evil.example:443', 'a b', '[::1', '[::1]:80', ':80', '127.0.0.1:99999', 'a:b:c', 'a@b', 'a/b', 'a?b', 'a#b', '%00', 'A..B', 'x'.repeat(300), '\u00e9vil'];

const HOSTILE_AUTHORIZATION = [
  'Bearer',
  'Bearer ',
  'Bearer  x',
  'bearer abc',
  'BEARER abc',
  'Bearer a.b.c',
  'Bearer a.b',
  'Bearer ....',
  'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.',
  'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln',
  'Bearer eyJ9.eyJ9.eyJ9',
  'Bearer x, Bearer y',
  'Basic Og==',
  'Basic !!!',
  'Basic dXNlcjpwYXNz',
  'Basic',
  'DPoP abc',
  'Digest username="a"',
  'Negotiate YII=',
  '',
  ' ',
  '\u00e9\u00e9',
];

/** A hostile or valid Authorization value. */
function authorizationValue(valid: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    ...(valid.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...valid) }] : []),
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_AUTHORIZATION) },
    { weight: 1, arbitrary: asciiText(40).map((s) => `Bearer ${s}`) },
    { weight: 1, arbitrary: fc.integer({ min: 2_000, max: 12_000 }).map((n) => `Bearer ${'a'.repeat(n)}`) },
    // A valid token with one character changed: a bad signature.
    ...(valid.length > 0
      ? [{ weight: 1, arbitrary: fc.tuple(fc.constantFrom(...valid), fc.nat()).map(([v, i]) => flip(v, 7 + (i % Math.max(1, v.length - 7)))) }]
      : []),
  );
}

/** Changes one character (kept printable). */
export function flip(value: string, index: number): string {
  if (value.length === 0) return 'x';
  const at = Math.min(index, value.length - 1);
  const c = value[at] === 'A' ? 'B' : 'A';
  return `${value.slice(0, at)}${c}${value.slice(at + 1)}`;
}

const HOSTILE_ACCEPT = [
  '*/*',
  '',
  'text/html',
  'application/json',
  'application/xml',
  'application/problem+json',
  'application/problem+xml',
  'text/*',
  'image/png',
  'application/json;q=0',
  '*/*;q=0',
  'application/json;q=abc',
  'application/json;q=-1',
  'application/json;q=1.0000001',
  ';;;',
  ',,,',
  'application/',
  '/json',
  'application/vnd.gatehouse.v1+json',
  'application/vnd.gatehouse.v99+json',
  'application/vnd.gatehouse.v1+xml',
  'application/vnd.gatehouse.v+json',
  'application/vnd.gatehouse.v01+json',
  'application/vnd.gatehouse.v1.0+json',
  'application/vnd.gatehouse.v1+json; version=2',
  'text/html;level=1, */*;q=0.1',
  'application/json, application/xml;q=0.9, text/html;q=0.8',
  'application/*',
];

const VERSIONS = ['1', '2', 'v1', 'V2', '0', '-1', '99', '1.0', '1,2', 'v', '', ' ', 'latest', '1e3', '٢', '\u0000'];

const FORWARDED: readonly fc.Arbitrary<readonly [string, string]>[] = [
  fc.constantFrom('X-Forwarded-For', 'X-Real-IP').chain((name) =>
    fc.constantFrom('1.2.3.4', '::1', '127.0.0.1, 10.0.0.1', 'unknown', '', 'a'.repeat(300), '999.999.999.999', '1.2.3.4, , ,', '[::1]:80').map((v) => [name, v] as const),
  ),
  fc.constantFrom('https', 'http', 'HTTPS', 'javascript', 'https, http', '', 'ftp').map((v) => ['X-Forwarded-Proto', v] as const),
  fc.constantFrom('evil.example', 'evil.example:443', 'a b', '', '127.0.0.1:1', 'evil.example, good.example', '[::1', '%00').map((v) => ['X-Forwarded-Host', v] as const),
  fc.constantFrom('80', '443', '-1', '99999', 'abc').map((v) => ['X-Forwarded-Port', v] as const),
  fc.constantFrom('for=1.2.3.4;proto=https;host=evil.example', 'for="[::1]"', 'garbage', ';;;').map((v) => ['Forwarded', v] as const),
];

const INVENTED: fc.Arbitrary<readonly [string, string]> = fc.oneof(
  fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/), asciiText(40)),
  fc.tuple(fc.constantFrom('Origin', 'Referer', 'User-Agent', 'X-Request-Id', 'X-HTTP-Method-Override', 'If-None-Match', 'If-Modified-Since', 'Range', 'Accept-Encoding', 'Accept-Language', 'Cache-Control', 'Prefer', 'Sec-Fetch-Site', 'X-Requested-With'), fc.oneof(asciiText(40), fc.constantFrom('null', 'https://evil.example', 'DELETE', 'bytes=0-0,1-1', 'gzip;q=abc', '*', 'cross-site'))),
).filter(([name, value]) => clean(name) && clean(value) && !/^(content-length|transfer-encoding|connection|upgrade|expect|te|keep-alive|host|content-type)$/i.test(name));

/** A list of headers; every part optional. */
export function headerSet(options: HeaderOptions = {}): fc.Arbitrary<HeaderList> {
  const parts: fc.Arbitrary<HeaderList>[] = [
    options.validAuthorizationOnly && options.authorization?.length
      ? fc.constantFrom(...options.authorization).map((v) => [['Authorization', v] as const])
      : sometimes(
          fc.oneof(
            { weight: 6, arbitrary: fc.array(authorizationValue(options.authorization ?? []), { minLength: 1, maxLength: 1 }) },
            { weight: 1, arbitrary: fc.array(authorizationValue(options.authorization ?? []), { minLength: 2, maxLength: 3 }) },
          ),
          2,
        ).map((values) => (values ?? []).map((v) => ['Authorization', v] as const)),
    sometimes(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...(options.accept ?? ['*/*'])) }, { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_ACCEPT) }, { weight: 1, arbitrary: asciiText(30) }), 2).map((v) =>
      v === null ? [] : [['Accept', v] as const],
    ),
    options.apiVersion
      ? sometimes(fc.oneof({ weight: 2, arbitrary: fc.constantFrom(['1'], ['2']) }, { weight: 1, arbitrary: fc.array(fc.constantFrom(...VERSIONS), { minLength: 1, maxLength: 2 }) }), 4).map((values) => (values ?? []).map((v) => ['API-Version', v] as const))
      : fc.constant([]),
    sometimes(fc.array(fc.oneof(...FORWARDED), { minLength: 1, maxLength: 3 }), 5).map((v) => v ?? []),
    sometimes(fc.integer({ min: 4_000, max: 20_000 }).map((n) => [['X-Padding', 'p'.repeat(n)] as const]), 30).map((v) => v ?? []),
    sometimes(fc.array(INVENTED, { minLength: 1, maxLength: 3 }), 3).map((v) => v ?? []),
    sometimes(fc.tuple(fc.constantFrom('X-Odd', 'User-Agent', 'Accept-Language'), controlText()), 40).map((v) => (v ? [v] : [])),
    options.extra ?? fc.constant([]),
    options.hostileHost
      ? sometimes(fc.array(fc.constantFrom(...HOSTS), { minLength: 1, maxLength: 2 }), 6).map((hosts) => (hosts ?? []).map((h) => ['Host', h] as const))
      : fc.constant([]),
  ];
  return fc.tuple(...parts).map((lists) => lists.flat());
}
