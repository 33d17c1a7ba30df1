/**
 * Request bodies with their Content-Type. Rules:
 * - a body is malformed JSON, deeply nested JSON, JSON with `__proto__` / `constructor` keys,
 *   huge or odd numbers, values of the wrong type, XML (with an external entity), a form, invalid
 *   UTF-8, a body around the usual size limits (16 KiB to 1.1 MB), or one of the app's own plausible
 *   bodies (optionally with hostile keys merged in);
 * - the Content-Type usually (16 in 20) matches the body, and otherwise is another type (form sent as JSON
 *   and JSON as form), missing, or a malformed one;
 * - the sender sets Content-Length from the body's real size.
 */
import fc from 'fast-check';
import { anyText, asciiText, oddNumbers, PROTOTYPE_NAMES } from './adversarial-values.ts';
import type { HeaderList } from './headers.ts';

export interface BodyCase {
  /** The Content-Type header(s) to send with it (may be empty). */
  readonly headers: HeaderList;
  readonly body: string | Buffer | undefined;
}

export interface BodyOptions {
  /** Plausible JSON objects for the app (e.g. a valid item); hostile keys are merged into some. */
  readonly json?: fc.Arbitrary<Record<string, unknown>>;
  /** Plausible form fields for the app (e.g. `{ _csrf, id, value }`). */
  readonly form?: fc.Arbitrary<Record<string, string>>;
}

const deep = (open: string, close: string) => fc.integer({ min: 100, max: 50_000 }).map((n) => `${open.repeat(n)}${close.repeat(n)}`);

const HOSTILE_JSON: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '{',
    '}',
    '{"a":1,}',
    "{'a':1}",
    '{"a":1}{"b":2}',
    '\uFEFF{}',
    '{"a":NaN}',
    '{"a":Infinity}',
    '{"a":undefined}',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '[]',
    '[1,2,3]',
    'null',
    'true',
    '0',
    '"text"',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"__proto__":null}',
    '{"id":1,"id":2}',
    '{"toString":1,"valueOf":2,"hasOwnProperty":3}',
  ),
  deep('[', ']'),
  deep('{"a":', '}').map((s) => s.replace(/\}+$/, (m) => `1${m}`)),
  oddNumbers.map((n) => `{"id":${n}}`),
  oddNumbers.map((n) => `{"id":"${n}"}`),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  anyText(64),
);

const XML = fc.constantFrom(
  '<?xml version="1.0"?><item><title>x</title></item>',
  '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
  '<!DOCTYPE lol [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><x>&b;</x>',
  '<x',
);

const FORMS = fc.oneof(
  fc.constantFrom('a=1&a=2', '__proto__[polluted]=1', 'constructor[prototype][polluted]=1', '%zz=%', '=&=&=', 'a[]=1&a[]=2', 'a[b][c][d][e][f]=1', '&&&', 'a=%00', 'a=%ff%fe'),
  fc.array(fc.tuple(fc.oneof(asciiText(8), fc.constantFrom(...PROTOTYPE_NAMES)), asciiText(16)), { maxLength: 5 }).map((pairs) => new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, v])).toString()),
);

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=',
  'APPLICATION/JSON',
  'application/vnd.gatehouse.v1+json',
  'application/vnd.gatehouse.v9+json',
  'application/merge-patch+json',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=iso-8859-1',
  'multipart/form-data; boundary=x',
  'multipart/form-data',
  'text/plain',
  'text/xml',
  'application/xml',
  'application/octet-stream',
  '',
  ';;;',
  'json',
  '*/*',
];

function withKeys(arb: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: arb.map((v) => JSON.stringify(v)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(arb, fc.constantFrom(...PROTOTYPE_NAMES), fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant({ polluted: true })))
        // Written by hand so `__proto__` stays an own key in the text.
        .map(([v, key, value]) => JSON.stringify(v).replace(/^\{/, `{${JSON.stringify(key)}:${JSON.stringify(value)}${Object.keys(v).length > 0 ? ',' : ''}`)),
    },
    { weight: 1, arbitrary: fc.tuple(arb, fc.jsonValue({ maxDepth: 2 })).map(([v, wrong]) => JSON.stringify(Object.fromEntries(Object.keys(v).map((k) => [k, wrong])))) },
  );
}

/** A body and its Content-Type header(s); sometimes no body at all. */
export function bodyCase(options: BodyOptions = {}): fc.Arbitrary<BodyCase> {
  const json = options.json ? fc.oneof({ weight: 3, arbitrary: withKeys(options.json) }, { weight: 2, arbitrary: HOSTILE_JSON }) : HOSTILE_JSON;
  const form = options.form
    ? fc.oneof({ weight: 2, arbitrary: options.form.map((f) => new URLSearchParams(f).toString()) }, { weight: 1, arbitrary: FORMS })
    : FORMS;
  const jsonFirst = !(options.form && !options.json);
  const typed = fc.oneof(
    { weight: jsonFirst ? 18 : 3, arbitrary: json.map((body) => ({ type: 'application/json', body })) },
    { weight: jsonFirst ? 6 : 18, arbitrary: form.map((body) => ({ type: 'application/x-www-form-urlencoded', body })) },
    { weight: 3, arbitrary: XML.map((body) => ({ type: 'application/xml', body })) },
    { weight: 3, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ type: 'application/json', body: Buffer.from([0xff, 0xfe, ...bytes]) as string | Buffer })) },
    // Around the usual body limits (16 KiB forms, 1 MiB JSON).
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom(16_000, 16_384, 16_400, 100_000, 1_048_560, 1_048_577, 1_100_000), fc.boolean()).map(([n, asForm]) =>
        asForm ? { type: 'application/x-www-form-urlencoded', body: `a=${'x'.repeat(n)}` } : { type: 'application/json', body: `{"a":"${'x'.repeat(n)}"}` },
      ),
    },
  );
  const withType = fc.tuple(typed, fc.nat({ max: 19 }), fc.constantFrom(...CONTENT_TYPES)).map(([{ type, body }, pick, other]): BodyCase => {
    // 16 in 20: the matching type; 3 in 20: another one; 1 in 20: none, or two Content-Type lines.
    if (pick < 16) return { headers: [['Content-Type', type]], body };
    if (pick < 19) return { headers: [['Content-Type', other]], body };
    return { headers: typeof body === 'string' && body.length % 2 === 0 ? [] : [['Content-Type', type], ['Content-Type', other]], body };
  });
  return fc.oneof({ weight: 1, arbitrary: fc.constant<BodyCase>({ headers: [], body: undefined }) }, { weight: 4, arbitrary: withType });
}
