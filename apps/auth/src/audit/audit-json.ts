/**
 * The wire and `--json` shape of a stored audit event (authctl audit, GET /admin/v1/audit-events).
 * Rules: snake_case members as in the audit log lines; the time in ISO 8601 UTC; the id as a
 * string (a 64-bit sequence on PostgreSQL); absent identifiers are null, `fields` holds the rest.
 * The schemas are the admin API document's `AuditEvent` and `AuditEventPage`.
 */
import { z } from 'zod';
import type { StoredAuditEvent } from './audit-event-store.ts';

const nullableText = (description?: string) => (description ? z.string().nullable().meta({ description }) : z.string().nullable());

export const AuditEventJson = z.object({
  id: z.string().meta({ description: 'A growing sequence number' }),
  occurred_at: z.string().meta({ format: 'date-time' }),
  event: z.string().meta({ description: 'The stable event name, e.g. `login.password.failure`, `admin.user.disabled`' }),
  account_id: nullableText(),
  username: nullableText('The name typed at a login step (lower-cased), for events that may name no account'),
  client_id: nullableText(),
  actor_kind: nullableText('Who made an administrative change: `operator`, `client` or `account`'),
  actor: nullableText(),
  ip: nullableText(),
  request_id: nullableText('The request that caused the event (X-Request-Id, as nginx logs it); null for authctl'),
  fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).meta({ description: 'The event\'s other fields: identifiers and flags, never credentials' }),
});
export type AuditEventJson = z.output<typeof AuditEventJson>;

export const AuditEventPageJson = z.object({ items: z.array(AuditEventJson), next: z.string().nullable() });

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
