/** One problem of a configuration: the setting it concerns, and its line alone or in a list of several. */
export interface ConfigProblem {
  readonly setting: string;
  readonly alone: string;
  readonly listed: string;
}

/**
 * Settings are missing or wrong; the message names each one. Apps print it and exit at start.
 * `problems` holds the same lines one by one (one entry for a single problem); `found` holds each
 * problem whole, for a caller that merges several configurations into one report (the client's
 * launcher, config-problems.ts `add`).
 */
export class ConfigError extends Error {
  readonly code = 'invalid_config';
  readonly problems: readonly string[];
  // Private, so an error compares equal (tests' toThrow(new ConfigError(…))) by its lines alone.
  readonly #found: readonly ConfigProblem[];
  constructor(message: string, problems: readonly string[] = [message], found?: readonly ConfigProblem[]) {
    super(message);
    this.name = 'ConfigError';
    this.problems = problems;
    this.#found = found ?? problems.map((line) => ({ setting: '', alone: line, listed: line }));
  }

  get found(): readonly ConfigProblem[] {
    return this.#found;
  }
}
