/**
 * The wire and `--json` shape of a stored audit event (authctl audit, GET /admin/v1/audit-events).
 * Rules: snake_case members as in the audit log lines; the time in ISO 8601 UTC; the id as a
 * string (a 64-bit sequence on PostgreSQL); absent identifiers are null, `fields` holds the rest.
 */
import type { StoredAuditEvent } from './audit-event-store.ts';

export interface AuditEventJson {
  id: string;
  occurred_at: string;
  event: string;
  account_id: string | null;
  username: string | null;
  client_id: string | null;
  actor_kind: string | null;
  actor: string | null;
  ip: string | null;
  /** The request that caused it (X-Request-Id; nginx's `$request_id`), null outside a request. */
  request_id: string | null;
  fields: Readonly<Record<string, string | number | boolean>>;
}

export function auditEventJson(event: StoredAuditEvent): AuditEventJson {
  return {
    id: String(event.id),
    occurred_at: new Date(event.occurredAt).toISOString(),
    event: event.event,
    account_id: event.accountId,
    username: event.username,
    client_id: event.clientId,
    actor_kind: event.actorKind,
    actor: event.actor,
    ip: event.ip,
    request_id: event.requestId ?? null,
    fields: event.fields,
  };
}
