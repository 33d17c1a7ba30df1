/**
 * The audit sink's overflow on disk (audit-sink.ts): audit events that could not be written to the
 * database while it was unreachable, kept until it is back. Rules:
 * - one file per process, `<dataDir>/audit-spool/<pid>.ndjson`, one JSON record per line, in the
 *   order the events were emitted; two instances sharing a data directory never write one file;
 * - at most `maxRecords` records (default 100,000, some 30 MB): `append` keeps what fits and returns how many it kept (the
 *   caller counts the rest as dropped);
 * - `takeAll` hands every record back, oldest first, and removes the file: the caller owns them;
 * - at start a spool left by a process that is gone (a crash or a restart during an outage: its
 *   pid runs no more, or is ours again in a new container) is adopted, so its events are written too;
 * - a line that is not a record (a write cut short by a crash) is skipped, never fatal;
 * - writes are synchronous: they happen only during an outage, at most once per batch window.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
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
  /** Whether a process id still runs (a test decides). */
  isRunning?: (pid: number) => boolean;
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
  const isRunning = options.isRunning ?? running;
  const file = join(options.directory, `${pid}.ndjson`);
  const maxRecords = options.maxRecords ?? DEFAULT_MAX_RECORDS;
  let size = 0;

  if (existsSync(options.directory)) {
    for (const name of readdirSync(options.directory)) {
      const match = /^(\d+)\.ndjson$/.exec(name);
      if (!match) continue;
      const owner = Number(match[1]);
      if (owner !== pid && isRunning(owner)) continue;
      const path = join(options.directory, name);
      if (owner !== pid) {
        // Renamed first: another instance adopting the same orphan finds it gone.
        const claimed = `${path}.adopting-${pid}`;
        try {
          renameSync(path, claimed);
        } catch {
          continue;
        }
        const records = readRecords(claimed);
        if (records.length > 0) appendFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
        rmSync(claimed, { force: true });
      }
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
