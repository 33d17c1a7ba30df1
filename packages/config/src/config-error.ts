/** A setting is missing or wrong; the message names it. Apps print it and exit at start. */
export class ConfigError extends Error {
  readonly code = 'invalid_config';
}
