/**
 * GET /admin/v1/audit-events: the stored audit trail, through the query service authctl audit
 * uses too (audit/audit-trail.ts). Rules:
 * - scope `admin:audit:read`;
 * - query parameters as authctl's flags: `user` (a username: the account's events and failed
 *   logins naming it), `client`, `event` (a name, or a prefix ending in `.`), `since` (inclusive)
 *   and `until` (exclusive) as ISO 8601 with a zone or a duration back from now (`24h`, `7d`),
 *   `limit` 1..200 (default 50), `after` (the previous page's `next`);
 * - every refused parameter (a bad time, event, cursor, an empty filter) is 400
 *   `validation_failed` naming it in `errors`; nothing is queried then;
 * - the answer is `{ items, next }`, newest first, items in audit/audit-json.ts's shape.
 */
import { z } from 'zod';
import { auditEventJson, AuditEventPageJson } from '../../audit/audit-json.ts';
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX, AuditQueryError, type AuditQuery, type AuditTrail } from '../../audit/audit-trail.ts';
import { parseTimeBound } from '../../audit/time-bound.ts';
import type { AdminRouter } from './admin-router.ts';
import { validationFailed } from './problem.ts';

const AuditEventsQuery = z.strictObject({
  user: z.string().min(1).max(256).optional().meta({ description: 'A username: the account\'s events and the events naming that typed username (failed logins)' }),
  client: z.string().min(1).max(256).optional().meta({ description: 'A client id' }),
  event: z.string().min(1).max(100).optional().meta({ description: 'An event name (`login.password.failure`), or a prefix ending in `.` (`login.`)' }),
  since: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .meta({ description: 'Inclusive: ISO 8601 with a zone (`2026-11-23T10:00:00Z`, `2026-11-23`) or a duration back from now (`30m`, `24h`, `7d`)' }),
  until: z.string().min(1).max(64).optional().meta({ description: 'Exclusive, as `since`; must be later than `since`' }),
  limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).default(AUDIT_PAGE_DEFAULT),
  after: z.string().min(1).max(512).optional().meta({ description: 'The `next` cursor of the previous page' }),
});

/** `flush` writes this instance's queued audit events first: what the caller just did is listed. */
export function addAuditRoutes(router: AdminRouter, deps: { trail: AuditTrail; clock: () => number; flush?: () => Promise<void> }): void {
  router.add({
    method: 'GET',
    path: '/audit-events',
    scope: 'admin:audit:read',
    summary: 'The stored audit trail, newest first, with filters and keyset paging (as `authctl audit`)',
    operationId: 'listAuditEvents',
    responses: { 200: { description: 'One page of audit events', body: AuditEventPageJson } },
    query: AuditEventsQuery,
    async handle({ query }) {
      try {
        const now = deps.clock();
        const request: AuditQuery = { limit: query.limit };
        if (query.user !== undefined) request.username = query.user;
        if (query.client !== undefined) request.clientId = query.client;
        if (query.event !== undefined) request.event = query.event;
        if (query.since !== undefined) request.since = parseTimeBound(query.since, now, 'since');
        if (query.until !== undefined) request.until = parseTimeBound(query.until, now, 'until');
        if (query.after !== undefined) request.after = query.after;
        await deps.flush?.();
        const page = await deps.trail.query(request);
        return { status: 200, body: { items: page.items.map(auditEventJson), next: page.next } };
      } catch (error) {
        if (error instanceof AuditQueryError) throw validationFailed([{ field: error.field, message: error.reason }]);
        throw error;
      }
    },
  });
}
