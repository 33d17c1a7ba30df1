/**
 * Stores every audit event the auditor (auditor.ts) records. Rules:
 * - recording never blocks nor fails the caller: events are queued and written in the order they
 *   were emitted, by one writer at a time (a batch per insert), so the events of a request keep
 *   their order;
 * - the first event of an empty queue starts a batch window of BATCH_WINDOW_MS: the events of every
 *   request answered meanwhile share one insert (one commit, one fsync on SQLite) instead of one
 *   each, so token-endpoint load does not become one write transaction per request (bench/README.md, "Token path").
 *   100 ms is the bound the log lines have too (@gatehouse/logging). The timer never keeps a process
 *   alive: shutdown, the CLI and the admin API's audit-events listing call `flush()`, which writes
 *   at once;
 * - the events that arrive while a batch is being written wait for a window of their own, which
 *   opens when that write ends; only a full batch (MAX_BATCH) waiting, or a flush, writes them at
 *   once. So under load there are at most about ten inserts a second whatever the write takes, and
 *   a slow insert does not shrink the batches. An event waits at most one window
 *   and one write;
 * - no event is lost to an outage: a batch that cannot be written stays first in the queue and is
 *   tried again after RETRY_MIN_MS, doubling up to RETRY_MAX_MS (a flush tries at once). The first
 *   failure of an outage logs `audit.persist_failed` (warn, with how many events wait), the first
 *   write that succeeds again `audit.persist_recovered` (info, with how many were dropped meanwhile);
 * - at most `memoryLimit` events wait in memory (a database that hangs must not eat the memory);
 *   when one more arrives, the waiting ones move to the spool on disk (audit-spool.ts, under the
 *   app's data directory, at most `spoolLimit` events) and are written first when the database is
 *   back. A flush that cannot write moves the waiting events there too, so a shutdown during an
 *   outage keeps them for the next start. Without a spool, or with a full one, events are dropped:
 *   only then is an event lost, counted in `gatehouse_audit_events_dropped_total` and logged
 *   (`audit.events_dropped`, warn, once per outage; the count is in the recovery line too);
 * - `gatehouse_audit_events_pending` is the number of events waiting (memory and spool);
 * - the time is taken when the event is emitted, from the injected clock;
 * - fields named on the log redaction list (passwords, codes, tokens…) are dropped, like in the
 *   logs; fields are identifiers anyway;
 * - `flush()` resolves once every event recorded so far is written, or kept in the spool (or
 *   memory, without a spool) because the database cannot be reached.
 */
import { REDACT_PATHS, type Logger } from '@gatehouse/logging';
import { Counter, Gauge, type Registry } from '@gatehouse/metrics';
import type { AuditEventStore, AuditRecord } from './audit-event-store.ts';
import type { AuditSpool } from './audit-spool.ts';

const MAX_BATCH = 200;
/** How long the first queued event waits for others to share its insert, ms. */
const BATCH_WINDOW_MS = 100;
const MEMORY_LIMIT = 10_000;
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;
/** A username is whatever was typed; keep a bounded prefix of it. */
const MAX_USERNAME = 200;

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
  /** Where events wait on disk while the database is unreachable; without it, memory only. */
  spool?: AuditSpool;
  /** The registry of the dropped and pending metrics (the app's; the CLI has none). */
  metrics?: Registry;
  /** Events waiting in memory before they move to the spool (tests lower it). */
  memoryLimit?: number;
}

function text(value: string | number | boolean | undefined): string | null {
  return value === undefined ? null : String(value);
}

/** Splits an event's fields into the stored columns and the rest. */
function toRecord(occurredAt: number, event: string, fields: Fields): AuditRecord {
  const { account_id, username, client_id, actor_kind, actor, ip, request_id, ...rest } = fields;
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
    requestId: text(request_id),
    fields: others,
  };
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown';
}

export function createAuditSink(deps: AuditSinkDeps): AuditSink {
  const { store, clock, logger, spool } = deps;
  const memoryLimit = deps.memoryLimit ?? MEMORY_LIMIT;
  let queue: AuditRecord[] = [];
  let writing: Promise<void> | undefined;
  let window: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let retryDelay = RETRY_MIN_MS;
  let failing = false;
  let droppedInOutage = 0;

  const registers = deps.metrics ? [deps.metrics] : [];
  const droppedTotal = new Counter({
    name: 'gatehouse_audit_events_dropped_total',
    help: 'Audit events lost: the database was unreachable and the memory queue and the spool on disk were full.',
    registers,
  });
  new Gauge({
    name: 'gatehouse_audit_events_pending',
    help: 'Audit events waiting to be written to the database, in memory and in the spool on disk.',
    registers,
    collect() {
      this.set(queue.length + (spool?.size ?? 0));
    },
  });

  function drop(count: number, event: string): void {
    if (count === 0) return;
    droppedTotal.inc(count);
    if (droppedInOutage === 0) {
      logger.warn({ event: 'audit.events_dropped', audit_event: event, dropped: count }, 'audit events dropped: the database is unreachable and the spool is full');
    }
    droppedInOutage += count;
  }

  /** Moves the waiting events to the spool; what does not fit is dropped. */
  function spill(): void {
    if (queue.length === 0) return;
    const waiting = queue;
    queue = [];
    let kept = 0;
    try {
      kept = spool ? spool.append(waiting) : 0;
    } catch (error) {
      logger.error({ event: 'audit.spool_failed', error_code: errorCode(error) }, 'audit spool could not be written');
    }
    drop(waiting.length - kept, waiting.at(-1)!.event);
  }

  function openWindow(): void {
    window ??= setTimeout(startWriting, BATCH_WINDOW_MS).unref();
  }

  function scheduleRetry(): void {
    retry ??= setTimeout(() => {
      retry = undefined;
      startWriting();
    }, retryDelay).unref();
    retryDelay = Math.min(retryDelay * 2, RETRY_MAX_MS);
  }

  function recovered(): void {
    failing = false;
    retryDelay = RETRY_MIN_MS;
    if (retry) clearTimeout(retry);
    retry = undefined;
    logger.info({ event: 'audit.persist_recovered', pending: queue.length + (spool?.size ?? 0), dropped: droppedInOutage }, 'audit events are stored again');
    droppedInOutage = 0;
  }

  /** The spool holds the oldest events (moved there before those in memory arrived). */
  function takeSpool(): void {
    if (spool && spool.size > 0) queue = [...spool.takeAll(), ...queue];
  }

  async function drain(): Promise<void> {
    takeSpool();
    do {
      const batch = queue.slice(0, MAX_BATCH);
      try {
        await store.append(batch);
      } catch (error) {
        if (!failing) {
          failing = true;
          logger.warn({ event: 'audit.persist_failed', error_code: errorCode(error), pending: queue.length + (spool?.size ?? 0) }, 'audit events not stored yet: kept until the database is back');
        }
        // What a retry read back from the spool goes back there, not into memory (in the same order).
        if (queue.length > memoryLimit) spill();
        scheduleRetry();
        break;
      }
      // Not sliced before the write: a failed batch stays first in the queue.
      queue = queue.slice(batch.length);
      if (failing) {
        recovered();
        takeSpool();
      }
    } while (queue.length >= MAX_BATCH);
    writing = undefined;
    // What arrived during the write waits for a window of its own (a flush waiting writes it at once).
    if (queue.length > 0 && !failing) openWindow();
  }

  function startWriting(): void {
    if (window) clearTimeout(window);
    window = undefined;
    if (queue.length > 0 || (spool?.size ?? 0) > 0) writing ??= drain();
  }

  // A spool adopted at start (an outage before a restart) is written as soon as the database answers.
  if ((spool?.size ?? 0) > 0) openWindow();

  return {
    record(event, fields) {
      if (queue.length >= memoryLimit) {
        if (spool && !writing) spill();
        else if (spool) {
          // The queue is being written: spill what is not in that batch.
          const inFlight = queue.slice(0, MAX_BATCH);
          queue = queue.slice(MAX_BATCH);
          spill();
          queue = inFlight;
        } else {
          drop(1, event);
          return;
        }
      }
      queue.push(toRecord(clock(), event, fields));
      // While a batch is written or a retry waits, the next write comes from them; otherwise a window opens.
      if (!writing && !failing) openWindow();
    },
    async flush() {
      while (writing || queue.length > 0 || (spool?.size ?? 0) > 0) {
        startWriting();
        await writing;
        if (failing) {
          // Kept for the next start (or the next retry) rather than waited for.
          if (spool) spill();
          return;
        }
      }
    },
  };
}
