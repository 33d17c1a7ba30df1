/**
 * The building blocks every request arbitrary draws from: hostile path segments, query values and
 * plain strings. Rules:
 * - values never contain CR or LF (they would split the request on the wire and test our own
 *   framing, not the app) and never contain the markers the invariants look for in answers
 *   (`node_modules`, `/work/`, `    at `, `Error:`), so an app echoing its input is not reported as a leak;
 * - everything else is fair: NUL, unicode, over-long strings, percent-encoding mistakes, JavaScript
 *   prototype names.
 */
import fc from 'fast-check';

const FORBIDDEN_IN_INPUT = /[\r\n]|node_modules|\/work\/|\s{4}at |Error:/;

/** Drops values that would break framing or look like a leak when echoed. */
export const clean = (value: string): boolean => !FORBIDDEN_IN_INPUT.test(value);

/** Names that poison plain-object lookups. */
export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'] as const;

/** A short string of any code points (no CR/LF). */
export const anyText = (maxLength = 24): fc.Arbitrary<string> => fc.string({ unit: 'binary', maxLength }).filter(clean);

const PRINTABLE = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));

/** A string of printable ASCII, as most real clients send. */
export const asciiText = (maxLength = 24): fc.Arbitrary<string> => fc.string({ unit: PRINTABLE, maxLength }).filter(clean);

/** A string of ASCII control characters too (NUL, ESC, DEL): HTTP's parser refuses them in headers. */
export const controlText = (maxLength = 8): fc.Arbitrary<string> => fc.string({ unit: 'binary-ascii', minLength: 1, maxLength }).filter(clean);

/** `arbitrary` one time in `oneIn`, else null. */
export function sometimes<T>(arbitrary: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: 1, arbitrary }, { weight: oneIn - 1, arbitrary: fc.constant(null) });
}

/** Numbers written the many ways a parser may trip on. */
export const oddNumbers: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('0', '-1', '-0', '1.5', '1e3', '1e400', '0x10', '0o7', '0b1', 'NaN', 'Infinity', '-Infinity', '9007199254740993', '123456789012345678901234567890', '00001', '+1', ' 1', '1 ', '١٢٣'),
  fc.integer().map(String),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
);

/** A path segment: plausible ids and names, encoding tricks, traversal, prototype names, huge runs. */
export const pathSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.nat({ max: 50 }).map(String) },
  { weight: 4, arbitrary: oddNumbers.map((n) => n.replace(/ /g, '%20')) },
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9_-]{1,12}$/) },
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      '..', '.', '%2e%2e', '%2E%2E', '%252e%252e', '..%2f', '%2f', '%2F', '%5c', '\\', '%00', '%', '%zz', '%c0%af', '%e2%80%ae', '%ff%fe',
      '%uff0e', '~', '*', ';', ';jsessionid=1', '%20', '+', '@', ':', '%3a', '%3f', '#', '%23', 'null', 'undefined', 'true', '[]', '{}',
      ...PROTOTYPE_NAMES,
    ),
  },
  { weight: 4, arbitrary: anyText(16).map(encodeURIComponentLoose) },
  { weight: 1, arbitrary: anyText(8).filter((s) => !/[\s?#]/.test(s)) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 6_000 }).map((n) => 'a'.repeat(n)) },
);

/** Like encodeURIComponent, but lone surrogates become `%ED%A0%80`-style junk instead of throwing. */
export function encodeURIComponentLoose(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...Buffer.from(value, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
}

/** A query-string value. */
export const queryValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: oddNumbers.map((n) => n.replace(/ /g, '%20')) },
  { weight: 8, arbitrary: asciiText(12).map(encodeURIComponentLoose) },
  { weight: 6, arbitrary: fc.constantFrom('', '%', '%zz', '%00', '%ff', '%E2%82', '+', '%20', '&', '=', '==', 'a=b', 'javascript:alert(1)', 'https://evil.example/', '//evil.example', '../../', ...PROTOTYPE_NAMES) },
  { weight: 2, arbitrary: fc.integer({ min: 1_000, max: 12_000 }).map((n) => 'x'.repeat(n)) },
);
