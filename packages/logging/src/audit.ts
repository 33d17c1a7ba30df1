/**
 * Audit lines. Rules: one line per security-relevant event, at info level, marked `audit: true`,
 * with a stable `event` name that is also the message; each app names its events in a closed
 * union and passes it as `Event`. Fields are identifiers and flags (account id, client id, ip,
 * method), never credentials: the redaction list removes the known secret fields anyway.
 */
import type { Logger } from 'pino';
import { directLine } from './direct-line.ts';

/** The fields of an audit line: flat identifiers and flags only. */
export type AuditFields = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * Writes one audit line `{ audit: true, event, ...fields }` at info level. An app wraps it with
 * its own closed event union, e.g. `audit(logger, event: AuthAuditEvent, fields)`. A logger made
 * by createLogger writes it straight to its destination (direct-line.ts: the same bytes as pino,
 * without its general path; the token endpoint writes one per token issued).
 */
export function audit<Event extends string>(logger: Logger, event: Event, fields: AuditFields = {}): void {
  const line = { audit: true, event, ...fields };
  const direct = directLine(logger);
  if (direct) direct('info', line, event);
  else logger.info(line, event);
}
