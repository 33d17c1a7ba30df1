/**
 * Settings are missing or wrong; the message names each one. Apps print it and exit at start.
 * `problems` holds the same lines one by one (one entry for a single problem).
 */
export class ConfigError extends Error {
  readonly code = 'invalid_config';
  readonly problems: readonly string[];
  constructor(message: string, problems: readonly string[] = [message]) {
    super(message);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
