import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Secrets never reach the log: these paths are removed wherever they appear, and request
 * logging only ever records method, path (without query) and status.
 */
const REDACT = [
  'password',
  'code',
  'secret',
  'client_secret',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'authorization',
  '*.password',
  '*.code',
  '*.secret',
  '*.token',
  'req.headers.authorization',
  'req.headers.cookie',
];

export function createLogger(options: { level: string; name?: string }): Logger {
  return pino({ name: options.name ?? 'auth', level: options.level, redact: { paths: REDACT, remove: true } });
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

export function audit(logger: Logger, event: AuditEvent, fields: Record<string, string | number | boolean | undefined> = {}): void {
  logger.info({ audit: true, event, ...fields }, event);
}
