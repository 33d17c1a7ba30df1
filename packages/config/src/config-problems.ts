/**
 * Collects every problem of one configuration, so a start-up reports them all at once (like
 * Authelia's validator) instead of one per attempt.
 * Rules:
 * - a bad value of one setting reads `invalid setting NAME: why`; a rule spanning settings is one
 *   sentence that names them (`A and B must be set when NODE_ENV=production`);
 * - one problem is thrown as exactly that line; several as `invalid settings:` followed by one
 *   indented line each (`  NAME: why`, or the sentence), in the order they were found;
 * - {@link ConfigProblems.has} tells a cross-field check that one of its inputs is already
 *   reported, so it does not add a second, misleading problem built on a default;
 * - a line already reported is not added again (several configurations merged into one report,
 *   like the client launcher's two apps, share their common problems).
 */
import { ConfigError, type ConfigProblem } from './config-error.ts';

export class ConfigProblems {
  readonly #problems: ConfigProblem[] = [];

  /** Adds one problem as found (a merged report adds another's `ConfigError.found`), unless its line is already there. */
  add(problem: ConfigProblem): void {
    if (!this.#problems.some((p) => p.listed === problem.listed)) this.#problems.push(problem);
  }

  /**
   * A bad value: `invalid setting NAME: why`. `concerns` is the setting {@link has} answers for
   * when it differs from the one named (a secret's `NAME_FILE` concerns NAME).
   */
  invalid(setting: string, why: string, concerns: string = setting): void {
    this.add({ setting: concerns, alone: `invalid setting ${setting}: ${why}`, listed: `${setting}: ${why}` });
  }

  /** A rule that is not a single bad value, as one sentence that names the setting(s); `setting` is the one {@link has} answers for. */
  sentence(setting: string, text: string): void {
    this.add({ setting, alone: text, listed: text });
  }

  /**
   * A setting production cannot do without (a public URL, a secret): `NAME must be set when
   * NODE_ENV=production (why)`. Development defaults point at localhost, so production never
   * falls back to them.
   */
  requiredInProduction(setting: string, why: string): void {
    this.sentence(setting, `${setting} must be set when NODE_ENV=production (${why})`);
  }

  /** True when `setting` already has a problem. */
  has(setting: string): boolean {
    return this.#problems.some((p) => p.setting === setting);
  }

  get size(): number {
    return this.#problems.length;
  }

  /** Throws one {@link ConfigError} listing every problem, when there is any. */
  throwIfAny(): void {
    if (!this.#problems.length) return;
    const [only] = this.#problems;
    const found = [...this.#problems];
    if (found.length === 1) throw new ConfigError(only!.alone, [only!.alone], found);
    const lines = found.map((p) => p.listed);
    throw new ConfigError(`invalid settings:\n${lines.map((line) => `  ${line}`).join('\n')}`, lines, found);
  }
}
