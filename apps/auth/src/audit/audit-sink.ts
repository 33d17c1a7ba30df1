/**
 * Stores every audit event that `audit()` (logging/logger.ts) writes. Rules:
 * - attached once to a logger (`withAuditSink`, in createApp and the CLI context); every child of
 *   that logger inherits it (pino children are prototype-linked), so callers keep calling
 *   `audit(logger, event, fields)` and nothing else changes at the call sites;
 * - recording never blocks nor fails the caller: events are queued and written in the order they
 *   were emitted, by one writer at a time (a batch per insert), so the events of a request keep
 *   their order; a failed write logs `audit.persist_failed` naming the event (no fields) and the
 *   next events are still written;
 * - the first event of an empty queue starts a batch window of BATCH_WINDOW_MS: the events of every
 *   request answered meanwhile share one insert (one commit, one fsync on SQLite) instead of one
 *   each; under token-endpoint load that was one write transaction per request (issue 13), and at
 *   10 ms still one commit (an fsync on SQLite, blocking the event loop) per few requests. 100 ms
 *   is the bound the log lines have too (@gatehouse/logging). The timer never keeps a process
 *   alive: shutdown, the CLI and the admin API's audit-events listing call `flush()`, which writes
 *   at once;
 * - the events that arrive while a batch is being written wait for a window of their own, which
 *   opens when that write ends; only a full batch (MAX_BATCH) waiting, or a flush, writes them at
 *   once. So under load there are at most about ten inserts a second whatever the write takes; when
 *   the next batch was written as soon as the last one ended, a PostgreSQL insert of a few
 *   milliseconds made batches of about six events under the refresh load (issue 13, twelfth pass).
 *   An event waits at most one window and one write;
 * - the time is taken when the event is emitted, from the injected clock;
 * - fields named on the log redaction list (passwords, codes, tokens…) are dropped, like in the
 *   logs; fields are identifiers anyway;
 * - at most MAX_QUEUE events wait (a database that hangs must not eat the memory); beyond that an
 *   event is logged as not stored, like a failed write;
 * - `flush()` resolves once every event recorded so far is written or reported (shutdown, tests).
 */
import { REDACT_PATHS, type Logger } from '@gatehouse/logging';
import type { AuditEventStore, AuditRecord } from './audit-event-store.ts';

const MAX_BATCH = 200;
/** How long the first queued event waits for others to share its insert, ms. */
const BATCH_WINDOW_MS = 100;
const MAX_QUEUE = 10_000;
/** A username is whatever was typed; keep a bounded prefix of it. */
const MAX_USERNAME = 200;

const SINK = Symbol('gatehouse.auditSink');
const SECRET_FIELDS = new Set(REDACT_PATHS.filter((path) => /^[A-Za-z_]+$/.test(path)));

type Fields = Readonly<Record<string, string | number | boolean | undefined>>;

export interface AuditSink {
  record(event: string, fields: Fields): void;
  flush(): Promise<void>;
}

export interface AuditSinkDeps {
  store: Pick<AuditEventStore, 'append'>;
  clock: () => number;
  /** Where write failures are reported (not an audit logger). */
  logger: Logger;
}

function text(value: string | number | boolean | undefined): string | null {
  return value === undefined ? null : String(value);
}

/** Splits an event's fields into the stored columns and the rest. */
function toRecord(occurredAt: number, event: string, fields: Fields): AuditRecord {
  const { account_id, username, client_id, actor_kind, actor, ip, ...rest } = fields;
  const others: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(rest)) {
    if (value !== undefined && !SECRET_FIELDS.has(name)) others[name] = value;
  }
  return {
    occurredAt,
    event,
    accountId: text(account_id),
    username: username === undefined ? null : String(username).toLowerCase().slice(0, MAX_USERNAME),
    clientId: text(client_id),
    actorKind: text(actor_kind),
    actor: text(actor),
    ip: text(ip),
    fields: others,
  };
}

export function createAuditSink(deps: AuditSinkDeps): AuditSink {
  const { store, clock, logger } = deps;
  let queue: AuditRecord[] = [];
  let writing: Promise<void> | undefined;
  let window: NodeJS.Timeout | undefined;

  const notStored = (event: string) => logger.warn({ event: 'audit.persist_failed', audit_event: event }, 'audit event not stored');

  function openWindow(): void {
    window ??= setTimeout(startWriting, BATCH_WINDOW_MS).unref();
  }

  async function drain(): Promise<void> {
    do {
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(MAX_BATCH);
      try {
        await store.append(batch);
      } catch {
        for (const record of batch) notStored(record.event);
      }
    } while (queue.length >= MAX_BATCH);
    writing = undefined;
    // What arrived during the write waits for a window of its own (a flush waiting writes it at once).
    if (queue.length > 0) openWindow();
  }

  function startWriting(): void {
    if (window) clearTimeout(window);
    window = undefined;
    if (queue.length > 0) writing ??= drain();
  }

  return {
    record(event, fields) {
      if (queue.length >= MAX_QUEUE) {
        notStored(event);
        return;
      }
      queue.push(toRecord(clock(), event, fields));
      // While a batch is written, the next window opens when that write ends; otherwise now.
      if (!writing) openWindow();
    },
    async flush() {
      while (writing || queue.length > 0) {
        startWriting();
        await writing;
      }
    },
  };
}

/** A child of `logger` whose audit events (and those of its own children) go to `sink` too. */
export function withAuditSink(logger: Logger, sink: AuditSink): Logger {
  const child = logger.child({});
  Object.defineProperty(child, SINK, { value: sink, enumerable: false });
  return child;
}

/** The sink attached to this logger or one of its parents, if any. */
export function auditSinkOf(logger: Logger): AuditSink | undefined {
  return (logger as unknown as { [SINK]?: AuditSink })[SINK];
}
