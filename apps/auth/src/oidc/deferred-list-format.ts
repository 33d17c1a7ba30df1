/**
 * Keeps ICU's locale data out of an idle authorization server. Rules:
 * - oidc-provider creates two `Intl.ListFormat` when it is imported (its error messages, e.g.
 *   "must be one of a, b or c"); the first use of any `Intl` service maps ICU's data from the
 *   `node` binary into resident memory (bench/README.md, "Memory"), although those lists are
 *   formatted only when a request is refused;
 * - {@link deferListFormat} is the preload step of main.ts (packages/runtime run-server.ts): it
 *   puts a deferring `Intl.ListFormat` in place before the server's modules are evaluated; an
 *   instance keeps its arguments and builds the real formatter on its first call, so each call
 *   answers exactly what the real one answers (bad arguments throw at that first call instead of
 *   at construction);
 * - the function it returns puts the real constructor back, and runServer calls it as soon as
 *   the modules are loaded: only the instances made while importing are deferred;
 * - importing this module changes nothing; tests import app.ts without it and get
 *   oidc-provider's formatters as they are.
 */
const RealListFormat = Intl.ListFormat;

type Args = ConstructorParameters<typeof Intl.ListFormat>;

class DeferredListFormat {
  readonly #args: Args;
  #real: Intl.ListFormat | undefined;
  constructor(...args: Args) {
    this.#args = args;
  }
  #formatter(): Intl.ListFormat {
    this.#real ??= new RealListFormat(...this.#args);
    return this.#real;
  }
  format(list: Iterable<string>): string {
    return this.#formatter().format(list);
  }
  formatToParts(list: Iterable<string>): { type: 'element' | 'literal'; value: string }[] {
    return this.#formatter().formatToParts(list);
  }
  resolvedOptions(): Intl.ResolvedListFormatOptions {
    return this.#formatter().resolvedOptions();
  }
  static supportedLocalesOf = RealListFormat.supportedLocalesOf.bind(RealListFormat);
}

/** Defers every `Intl.ListFormat` made from now on; returns what puts the real one back (the instances made meanwhile stay deferred). */
export function deferListFormat(): () => void {
  (Intl as { ListFormat: unknown }).ListFormat = DeferredListFormat;
  return () => {
    (Intl as { ListFormat: unknown }).ListFormat = RealListFormat;
  };
}
