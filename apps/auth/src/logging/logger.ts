/**
 * The authorization server's logger: @gatehouse/logging (one pino setup, one redaction list)
 * named `auth`, and the closed list of this server's audit events.
 */
import { audit as auditLine, createLogger as createSharedLogger, type AuditFields, type Logger } from '@gatehouse/logging';

export type { Logger } from '@gatehouse/logging';

export function createLogger(options: { level: string; name?: string }): Logger {
  return createSharedLogger({ name: options.name ?? 'auth', level: options.level });
}

/** Audit events have a stable `event` name; callers pass identifiers, never credentials. */
export type AuditEvent =
  | 'login.password.success'
  | 'login.password.failure'
  | 'login.mfa.success'
  | 'login.mfa.failure'
  | 'login.mfa.enrolled'
  | 'login.lockout'
  | 'login.account_disabled'
  | 'token.issued'
  | 'token.revoked'
  | 'grant.revoked'
  | 'session.logout'
  | 'push.sent'
  | 'push.rate_limited'
  | 'push.approved'
  | 'push.denied'
  | 'push.expired'
  | 'push.answer.refused'
  | 'device.enrollment.issued'
  | 'device.enrolled'
  | 'device.enrollment.refused'
  | 'device.removed'
  | 'device.request.refused'
  | 'recovery.issued'
  | 'recovery.used';

export function audit(logger: Logger, event: AuditEvent, fields: AuditFields = {}): void {
  auditLine(logger, event, fields);
}
