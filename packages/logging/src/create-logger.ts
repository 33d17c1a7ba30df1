/**
 * The one way a Gatehouse process makes its logger. Rules: pino JSON lines on stdout (or the
 * given destination); every line names the app (`name`); the level comes from the app's config
 * (LOG_LEVEL), never from the environment here; the redaction list of redaction.ts applies to
 * every line, with the fields removed rather than masked.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { REDACT_PATHS } from './redaction.ts';

/** Options for {@link createLogger}. */
export interface LoggerOptions {
  /** The app (or instance, e.g. the relying party's client id) every line names. */
  readonly name: string;
  /** A pino level: `trace`, `debug`, `info`, `warn`, `error`, `fatal` or `silent`. */
  readonly level: string;
  /** Where the lines go (default stdout); tests pass a stream that collects them. */
  readonly destination?: DestinationStream;
}

/** A pino logger with the shared redaction list. */
export function createLogger(options: LoggerOptions): Logger {
  const settings = { name: options.name, level: options.level, redact: { paths: [...REDACT_PATHS], remove: true } };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
