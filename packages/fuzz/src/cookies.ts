/**
 * Cookie headers built from real cookies of the app, then tampered with. Rules:
 * - the input is the cookies a real browser holds (name/value pairs, `<name>.sig` signatures
 *   included) and, optionally, stale ones (e.g. of an ended session or a finished interaction);
 * - each cookie is kept, dropped, or tampered: value or signature changed by one character,
 *   signature dropped or taken from another cookie, value replaced by junk, truncated or huge;
 * - sometimes the same name is sent twice, or in two Cookie header lines.
 */
import fc from 'fast-check';
import { asciiText, sometimes } from './adversarial-values.ts';
import { flip, type HeaderList } from './headers.ts';

export type Cookie = readonly [name: string, value: string];

type Tamper = (cookie: Cookie, all: readonly Cookie[], n: number) => Cookie[];

const TAMPERS: readonly Tamper[] = [
  (c) => [c],
  () => [],
  ([name, value], _all, n) => [[name, flip(value, n % Math.max(1, value.length))]],
  ([name, value]) => [[name, value.slice(0, Math.floor(value.length / 2))]],
  ([name]) => [[name, '']],
  ([name, value]) => [[name, `${value}${value}`]],
  ([name]) => [[name, 'x'.repeat(5_000)]],
  ([name, value]) => [[name, encodeURIComponent(value)]],
  ([name, value]) => [[name, `"${value}"`]],
  ([name, value], _all, n) => [
    [name, value],
    [name, flip(value, n % Math.max(1, value.length))],
  ],
  // A signature cookie taken from another cookie.
  ([name, value], all, n) => {
    const sigs = all.filter(([other]) => other.endsWith('.sig') && other !== name);
    return name.endsWith('.sig') && sigs.length > 0 ? [[name, sigs[n % sigs.length]![1]]] : [[name, value]];
  },
];

/**
 * Cookie header lines from `cookies` (real ones) and `stale` (real but outdated ones), tampered.
 * Both lists are read when the arbitrary draws a value, so a test may fill them after a login.
 */
export function cookieHeaders(cookies: () => readonly Cookie[], stale: () => readonly Cookie[] = () => []): fc.Arbitrary<HeaderList> {
  return fc
    .record({
      useStale: fc.nat({ max: 4 }),
      tampers: fc.array(fc.tuple(fc.nat({ max: TAMPERS.length * 2 }), fc.nat()), { minLength: 8, maxLength: 8 }),
      junk: sometimes(fc.tuple(fc.stringMatching(/^[A-Za-z0-9._-]{1,16}$/), asciiText(20)), 4),
      split: fc.boolean(),
    })
    .map(({ useStale, tampers, junk, split }): HeaderList => {
      const old = stale();
      const base = useStale === 0 && old.length > 0 ? old : cookies();
      const sent: Cookie[] = [];
      base.forEach((cookie, i) => {
        const [which, n] = tampers[i % tampers.length]!;
        // Half the draws keep the cookie as it is.
        const tamper = which < TAMPERS.length ? TAMPERS[which]! : TAMPERS[0]!;
        sent.push(...tamper(cookie, base, n));
      });
      if (junk) sent.push([junk[0], junk[1].replace(/[;,\s]/g, '')]);
      if (sent.length === 0) return [];
      const pairs = sent.map(([name, value]) => `${name}=${value}`);
      if (split && pairs.length > 1) return [['Cookie', pairs.slice(0, 1).join('; ')], ['Cookie', pairs.slice(1).join('; ')]];
      return [['Cookie', pairs.join('; ')]];
    });
}
