/**
 * The relying party's logger: @gatehouse/logging (one pino setup, one redaction list) named
 * after the instance (its client id), and the closed list of its audit events.
 */
import { audit as auditLine, createLogger as createSharedLogger, type AuditFields, type DestinationStream, type Logger } from '@gatehouse/logging';

export type { Logger } from '@gatehouse/logging';

export function createLogger(options: { level: string; name: string; destination?: DestinationStream }): Logger {
  return createSharedLogger({ name: options.name, level: options.level, ...(options.destination ? { destination: options.destination } : {}) });
}

/** Audit events have a stable `event` name; callers pass identifiers, never credentials. */
export type AuditEvent = 'login.started' | 'login.success' | 'login.failure' | 'token.refreshed' | 'token.refresh_refused' | 'session.logout' | 'sso.ended'
  | 'session.backchannel_logout' | 'session.backchannel_logout.refused';

export function audit(logger: Logger, event: AuditEvent, fields: AuditFields = {}): void {
  auditLine(logger, event, fields);
}
