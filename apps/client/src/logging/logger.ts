import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Secrets never reach the log: these paths are removed wherever they appear, and the request
 * line records only method, path (without query) and status.
 */
const REDACT = [
  'code',
  'state',
  'nonce',
  'secret',
  'client_secret',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'authorization',
  '*.code',
  '*.secret',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  'req.headers.authorization',
  'req.headers.cookie',
];

export function createLogger(options: { level: string; name: string }): Logger {
  return pino({ name: options.name, level: options.level, redact: { paths: REDACT, remove: true } });
}

/** Audit events have a stable `event` name; callers pass identifiers, never credentials. */
export type AuditEvent = 'login.started' | 'login.success' | 'login.failure' | 'token.refreshed' | 'token.refresh_refused' | 'session.logout' | 'sso.ended';

export function audit(logger: Logger, event: AuditEvent, fields: Record<string, string | number | boolean | undefined> = {}): void {
  logger.info({ audit: true, event, ...fields }, event);
}
