/**
 * Rules for a page's text:
 * - every text of a page is a message of its app's catalogue, looked up by key; the reference
 *   catalogue (English) fixes the keys and the shape of each message (plain text, markup, or a
 *   function of named values returning text or markup);
 * - every other catalogue is a `Translation` of the reference: the type checker refuses one that
 *   lacks a key or gives a message another shape;
 * - a key that is not in the catalogue of the page's locale (a key computed at run time, or a
 *   catalogue forced past the type checker) renders as `{{missing:<key>}}`, never as another
 *   language's text, so a test that scans pages for MISSING_MESSAGE_MARKER finds it.
 */
import { SafeHtml } from '../html.ts';

/** A message: text, markup, or a function of named values giving text or markup. */
export type Message = string | SafeHtml | ((values: never) => string | SafeHtml);

/** A catalogue: messages by key. */
export type Catalogue = Readonly<Record<string, Message>>;

/** Another language of the reference catalogue `R`: the same keys, each message of the same shape. */
export type Translation<R extends Catalogue> = {
  readonly [K in keyof R]: R[K] extends (values: infer V) => infer T ? (values: V) => T : R[K] extends SafeHtml ? SafeHtml : string;
};

type ValuesOf<M> = M extends (values: infer V) => unknown ? [values: V] : [];
type TextOf<M> = M extends (values: never) => infer T ? T : M extends SafeHtml ? SafeHtml : string;

/** What a missing message renders as; tests assert that no page contains it. */
export const MISSING_MESSAGE_MARKER = '{{missing:';

/** The pages' text in one locale. */
export interface Translator<R extends Catalogue, L extends string = string> {
  readonly locale: L;
  /** The message `key`, given its values. */
  t<K extends keyof R & string>(key: K, ...values: ValuesOf<R[K]>): TextOf<R[K]>;
  /** A text message whose key is computed at run time (an error code); the marker when it is missing. */
  text(key: string): string;
  /** Whether the catalogue has a message `key`. */
  has(key: string): boolean;
}

/** The translator of `locale` over its catalogue (a `Translation` of the reference `R`). */
export function createTranslator<R extends Catalogue, L extends string>(locale: L, catalogue: Translation<R> | R): Translator<R, L> {
  const messages = catalogue as unknown as Readonly<Record<string, Message | undefined>>;
  const missing = (key: string) => `${MISSING_MESSAGE_MARKER}${key}}}`;
  return {
    locale,
    t(key, ...values) {
      const message = Object.hasOwn(messages, key) ? messages[key] : undefined;
      if (message === undefined) return missing(key) as never;
      return (typeof message === 'string' || message instanceof SafeHtml ? message : (message as (v: unknown) => unknown)(values[0])) as never;
    },
    text(key) {
      const message = Object.hasOwn(messages, key) ? messages[key] : undefined;
      return typeof message === 'string' ? message : missing(key);
    },
    has: (key) => Object.hasOwn(messages, key),
  };
}
