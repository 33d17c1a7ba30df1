/**
 * The audit sink's overflow on disk (audit-sink.ts): audit events that could not be written to the
 * database while it was unreachable, kept until it is back. Rules:
 * - one file per process, `<dataDir>/audit-spool/<host>-<pid>.ndjson` (host: os.hostname() with
 *   every character outside [A-Za-z0-9._-] made `_`), one JSON record per line, in the order the
 *   events were emitted. The host is in the name because containers sharing a data volume all run
 *   as pid 1: by pid alone they would write, and adopt, one file;
 * - at most `maxRecords` records (default 100,000, some 30 MB): `append` keeps what fits and returns how many it kept (the
 *   caller counts the rest as dropped);
 * - `takeAll` hands every record back, oldest first, and removes the file: the caller owns them;
 * - at start a spool of this host whose process is gone (a crash or a restart during an outage: its
 *   pid runs no more here, or is ours again in a new container with the same host name) is
 *   adopted, so its events are written too;
 * - a spool of another host (or a name without a host) is never adopted: whether its process still
 *   runs cannot be checked from here, and taking the file of a live instance would race its
 *   appends. No age bound replaces that check: an instance in a long outage with a full spool
 *   writes nothing, so an old file may still be live. Such files are reported once at start
 *   (`audit.spool_foreign`, warn, with their names): start that host again on this directory (a
 *   stable host name per data volume, deploy/compose.yaml), or, once it is gone for good, rename
 *   the file to `<this host>-<a pid not running here>.ndjson` so the next start adopts it;
 * - a line that is not a record (a write cut short by a crash) is skipped, never fatal;
 * - writes are synchronous: they happen only during an outage, at most once per batch window.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { AuditRecord } from './audit-event-store.ts';

const DEFAULT_MAX_RECORDS = 100_000;

export interface AuditSpool {
  /** Records waiting in the file. */
  readonly size: number;
  /** Appends records (oldest first); returns how many were kept. */
  append(records: readonly AuditRecord[]): number;
  /** Every record of the file, oldest first; the file is removed. */
  takeAll(): AuditRecord[];
}

export interface AuditSpoolOptions {
  directory: string;
  maxRecords?: number;
  /** This process's id (a test names another). */
  pid?: number;
  /** This machine's name, os.hostname() by default (a test names another). */
  hostname?: string;
  /** Whether a process id still runs on this host (a test decides). */
  isRunning?: (pid: number) => boolean;
  /** Where spools of other hosts are reported, once at start. */
  logger?: { warn(fields: Record<string, unknown>, message: string): void };
}

/** The host part of a spool's name: os.hostname() restricted to [A-Za-z0-9._-]. */
function spoolHostName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_') || 'unknown';
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isRecord(value: unknown): value is AuditRecord {
  const record = value as AuditRecord | null;
  return typeof record === 'object' && record !== null && typeof record.event === 'string' && typeof record.occurredAt === 'number' && typeof record.fields === 'object';
}

function readRecords(file: string): AuditRecord[] {
  const records: AuditRecord[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isRecord(value)) records.push(value);
    } catch {
      // A line cut short by a crash.
    }
  }
  return records;
}

export function createAuditSpool(options: AuditSpoolOptions): AuditSpool {
  const pid = options.pid ?? process.pid;
  const host = spoolHostName(options.hostname ?? hostname());
  const isRunning = options.isRunning ?? running;
  const file = join(options.directory, `${host}-${pid}.ndjson`);
  const maxRecords = options.maxRecords ?? DEFAULT_MAX_RECORDS;
  let size = 0;

  if (existsSync(options.directory)) {
    const foreign: string[] = [];
    for (const name of readdirSync(options.directory).sort()) {
      if (!name.endsWith('.ndjson')) continue;
      // The pid is the last `-<digits>`: a host name may hold dashes and digits itself.
      const match = /^(.+)-(\d+)\.ndjson$/.exec(name);
      if (!match || match[1] !== host) {
        foreign.push(name);
        continue;
      }
      const owner = Number(match[2]);
      if (owner === pid || isRunning(owner)) continue;
      const path = join(options.directory, name);
      // Renamed first: another instance of this host adopting the same orphan finds it gone.
      const claimed = `${path}.adopting-${pid}`;
      try {
        renameSync(path, claimed);
      } catch {
        continue;
      }
      const records = readRecords(claimed);
      if (records.length > 0) appendFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''), { mode: 0o600 });
      rmSync(claimed, { force: true });
    }
    if (foreign.length > 0) {
      options.logger?.warn(
        { event: 'audit.spool_foreign', host, files: foreign },
        'audit spools of another host left alone: their process cannot be checked from here; start that host on this directory, or rename a file to this host to adopt it',
      );
    }
    if (existsSync(file)) size = readRecords(file).length;
  }

  return {
    get size() {
      return size;
    },
    append(records) {
      const kept = records.slice(0, Math.max(0, maxRecords - size));
      if (kept.length === 0) return 0;
      mkdirSync(options.directory, { recursive: true, mode: 0o700 });
      appendFileSync(file, kept.map((r) => `${JSON.stringify(r)}\n`).join(''), { mode: 0o600 });
      size += kept.length;
      return kept.length;
    },
    takeAll() {
      if (size === 0 && !existsSync(file)) return [];
      const records = existsSync(file) ? readRecords(file) : [];
      rmSync(file, { force: true });
      size = 0;
      return records;
    },
  };
}
