/**
 * @gatehouse/logging: the structured logger every Gatehouse app uses. One pino setup
 * ({@link createLogger}), one redaction list ({@link REDACT_PATHS}) and one audit-line shape
 * ({@link audit}); each app keeps its own closed union of audit event names.
 */
export { createLogger } from './create-logger.ts';
export type { LoggerOptions } from './create-logger.ts';
export { REDACT_PATHS } from './redaction.ts';
export { directLine } from './direct-line.ts';
export type { DirectLevel, DirectLine } from './direct-line.ts';
export { audit } from './audit.ts';
export type { AuditFields } from './audit.ts';
export type { DestinationStream, Logger } from 'pino';
