/**
 * The audit trail as a dependency: code that emits audit events takes an `Auditor` in its deps.
 * Rules:
 * - `record(event, fields)` takes only the events of the catalogue (audit-events.ts), each with its
 *   own field set;
 * - every event is an audit log line and, when the auditor has a sink (createApp, authctl), a row
 *   of the stored trail (audit-sink.ts);
 * - both carry the `request_id` of the request being answered (logging/request-scope.ts), if any.
 */
import { audit as auditLine, type Logger } from '@gatehouse/logging';
import { currentRequestId } from '../logging/request-scope.ts';
import type { AuditEvent, AuditFields } from './audit-events.ts';
import type { AuditSink } from './audit-sink.ts';

export interface Auditor {
  record<E extends AuditEvent>(event: E, fields: AuditFields[E]): void;
}

export interface AuditorDeps {
  /** Where the audit lines are written. */
  logger: Logger;
  /** Where the events are stored; without it, log lines only. */
  sink?: Pick<AuditSink, 'record'>;
}

export function createAuditor(deps: AuditorDeps): Auditor {
  const { logger, sink } = deps;
  return {
    record(event, fields) {
      const requestId = currentRequestId();
      const line = requestId === undefined ? fields : { ...fields, request_id: requestId };
      auditLine(logger, event, line);
      sink?.record(event, line);
    },
  };
}
