/**
 * The authorization server's logger: @gatehouse/logging (one pino setup, one redaction list)
 * named `auth`. Audit events are written through the auditor (audit/auditor.ts), not here.
 */
import { createLogger as createSharedLogger, type DestinationStream, type Logger } from '@gatehouse/logging';

export type { Logger } from '@gatehouse/logging';

export function createLogger(options: { level: string; name?: string; destination?: DestinationStream }): Logger {
  const name = options.name ?? 'auth';
  return options.destination ? createSharedLogger({ name, level: options.level, destination: options.destination }) : createSharedLogger({ name, level: options.level });
}
