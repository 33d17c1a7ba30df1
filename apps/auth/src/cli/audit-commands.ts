/**
 * `authctl audit`: reads the stored audit trail (audit/audit-trail.ts, the query service the
 * admin API uses too). Rules:
 * - filters: --user <username> (the account's events and failed logins naming it), --client,
 *   --event (a name, or a prefix ending in `.`), --since / --until (ISO 8601 with a zone, or a
 *   duration back from now: 30m, 24h, 7d); --limit 1..200 (default 50), --after <cursor>;
 * - newest first; a table by default, `--json` one object `{ items, next }` (the admin API's page);
 *   when more events match, the table ends with the `--after` cursor of the next page;
 * - every bad flag (a bad time, limit, event or cursor) is a usage error, exit 2, naming the flag.
 */
import { AuditQueryError, type AuditQuery } from '../audit/audit-trail.ts';
import { auditEventJson } from '../audit/audit-json.ts';
import type { StoredAuditEvent } from '../audit/audit-event-store.ts';
import { parseTimeBound } from '../audit/time-bound.ts';
import { parseCommand, UsageError } from './args.ts';
import type { CliContext } from './cli-context.ts';
import { printTable } from './table.ts';

export const AUDIT_USAGE = [
  '  audit [--user <username>] [--client <client_id>] [--event <name|prefix.>] [--since <time>] [--until <time>]',
  '        [--limit <1-200>] [--after <cursor>] [--json]',
  '                                       the stored audit trail, newest first; a time is ISO 8601 (2026-11-23T10:00:00Z) or ago (30m, 24h, 7d)',
];

const COMMAND = 'audit';

function shortFields(event: StoredAuditEvent): string {
  const parts = Object.entries(event.fields).map(([name, value]) => `${name}=${String(value)}`);
  if (event.username !== null) parts.unshift(`username=${event.username}`);
  return parts.join(' ');
}

export async function runAuditCommand(args: readonly string[], ctx: CliContext): Promise<void> {
  const { values } = parseCommand(args, {
    command: COMMAND,
    positionals: [],
    options: {
      user: { type: 'string' },
      client: { type: 'string' },
      event: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      limit: { type: 'string' },
      after: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const query: AuditQuery = {};
  try {
    if (values.limit !== undefined) {
      if (!/^\d{1,4}$/.test(values.limit)) throw new UsageError(`${COMMAND}: --limit must be a whole number from 1 to 200`);
      query.limit = Number(values.limit);
    }
    if (values.user !== undefined) query.username = values.user;
    if (values.client !== undefined) query.clientId = values.client;
    if (values.event !== undefined) query.event = values.event;
    if (values.since !== undefined) query.since = parseTimeBound(values.since, ctx.now(), 'since');
    if (values.until !== undefined) query.until = parseTimeBound(values.until, ctx.now(), 'until');
    if (values.after !== undefined) query.after = values.after;
    const { auditTrail } = await ctx.stores();
    const page = await auditTrail.query(query);
    if (values.json) {
      ctx.printJson({ items: page.items.map(auditEventJson), next: page.next });
      return;
    }
    if (page.items.length === 0) {
      ctx.print('no audit events match');
      return;
    }
    printTable(
      ctx,
      ['TIME', 'EVENT', 'ACTOR', 'ACCOUNT', 'CLIENT', 'IP', 'FIELDS'],
      page.items.map((e) => [
        new Date(e.occurredAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        e.event,
        e.actorKind === null ? '-' : `${e.actorKind}:${e.actor ?? ''}`,
        e.accountId ?? '-',
        e.clientId ?? '-',
        e.ip ?? '-',
        shortFields(e),
      ]),
    );
    if (page.next) ctx.print(`more: add --after ${page.next}`);
  } catch (error) {
    // The query service's fields are named like the flags.
    if (error instanceof AuditQueryError) throw new UsageError(`${COMMAND}: --${error.field} ${error.reason}`);
    throw error;
  }
}
