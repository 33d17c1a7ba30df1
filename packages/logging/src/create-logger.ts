/**
 * The one way a Gatehouse process makes its logger. Rules: pino JSON lines on stdout, written in
 * batches (stdout-destination.ts), or on the given destination; every line names the app (`name`); the level comes from the app's config
 * (LOG_LEVEL), never from the environment here; the redaction list of redaction.ts applies to
 * every line and every child logger's bindings, with the fields removed rather than masked
 * (remove-secrets.ts).
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { allowDirectLines } from './direct-line.ts';
import { REDACT_PATHS } from './redaction.ts';
import { secretRemover } from './remove-secrets.ts';
import { batchedStdout } from './stdout-destination.ts';

// Compiled once for every logger (remove-secrets.ts): pino's own `redact` cost more than the rest of a line.
const removeSecrets = secretRemover(REDACT_PATHS);

/** Options for {@link createLogger}. */
export interface LoggerOptions {
  /** The app (or instance, e.g. the relying party's client id) every line names. */
  readonly name: string;
  /** A pino level: `trace`, `debug`, `info`, `warn`, `error`, `fatal` or `silent`. */
  readonly level: string;
  /** Where the lines go (default stdout, batched); tests pass a stream that collects them. */
  readonly destination?: DestinationStream;
}

/** A pino logger with the shared redaction list. */
export function createLogger(options: LoggerOptions): Logger {
  const settings = { name: options.name, level: options.level, formatters: { log: removeSecrets } };
  const logger = pino(settings, options.destination ?? batchedStdout());
  // pino gives a child's bindings to no formatter: they go through the list here (children inherit this).
  const makeChild = logger.child;
  logger.child = function child(this: Logger, bindings: Record<string, unknown>, childOptions?: object) {
    const made = makeChild.call(this, removeSecrets(bindings), childOptions);
    allowDirectLines(made);
    return made;
  } as Logger['child'];
  allowDirectLines(logger);
  return logger;
}
