/**
 * The audit spool's file names and adoption (audit/audit-spool.ts): containers that share a data
 * volume all run as pid 1, so the file is named by host and pid; a spool is adopted only when
 * it is this host's and its process is gone; another host's spool is left alone and reported once.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/audit-event-store.ts';
import { createAuditSpool } from '../../src/audit/audit-spool.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A fresh spool directory, created (as a previous run would have left it). */
function spoolDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-audit-spool-'));
  dirs.push(dir);
  const directory = join(dir, 'audit-spool');
  mkdirSync(directory);
  return directory;
}

const record = (clientId: string): AuditRecord => ({
  occurredAt: 1,
  event: 'token.issued',
  accountId: null,
  username: null,
  clientId,
  actorKind: null,
  actor: null,
  ip: null,
  fields: { grant_type: 'client_credentials' },
});
const clientsOf = (records: AuditRecord[]) => records.map((r) => r.clientId);
const line = (clientId: string) => `${JSON.stringify(record(clientId))}\n`;

function warnings() {
  const lines: Record<string, unknown>[] = [];
  return { lines, logger: { warn: (fields: Record<string, unknown>, msg: string) => void lines.push({ ...fields, msg }) } };
}

describe('audit spool file names', () => {
  it('is <host>-<pid>.ndjson, the host as os.hostname() gives it, restricted to [A-Za-z0-9._-]', () => {
    const directory = spoolDirectory();
    createAuditSpool({ directory }).append([record('default')]);
    createAuditSpool({ directory, hostname: 'web 1/ü:x', pid: 9 }).append([record('odd')]);
    expect(readdirSync(directory).sort()).toEqual([`${hostname().replace(/[^A-Za-z0-9._-]/g, '_')}-${process.pid}.ndjson`, 'web_1___x-9.ndjson'].sort());
  });

  it('two containers on one volume, both pid 1, write two files and never take each other’s', () => {
    const directory = spoolDirectory();
    const isRunning = () => false;
    const a = createAuditSpool({ directory, hostname: '3f2a9c1d0b7e', pid: 1, isRunning });
    const b = createAuditSpool({ directory, hostname: '9e8d7c6b5a41', pid: 1, isRunning });
    expect(a.append([record('a1'), record('a2')])).toBe(2);
    expect(b.append([record('b1')])).toBe(1);
    expect(readdirSync(directory).sort()).toEqual(['3f2a9c1d0b7e-1.ndjson', '9e8d7c6b5a41-1.ndjson']);
    // b restarts during the outage (same host name, pid 1 again): it finds its own file, not a's.
    const { lines, logger } = warnings();
    const restarted = createAuditSpool({ directory, hostname: '9e8d7c6b5a41', pid: 1, isRunning, logger });
    expect(restarted.size).toBe(1);
    expect(clientsOf(restarted.takeAll())).toEqual(['b1']);
    expect(clientsOf(a.takeAll())).toEqual(['a1', 'a2']);
    expect(lines).toEqual([
      {
        event: 'audit.spool_foreign',
        host: '9e8d7c6b5a41',
        files: ['3f2a9c1d0b7e-1.ndjson'],
        msg: 'audit spools of another host left alone: their process cannot be checked from here; start that host on this directory, or rename a file to this host to adopt it',
      },
    ]);
    expect(readdirSync(directory)).toEqual([]);
  });

  it('adopts only this host’s spools whose process is gone; another host’s, or one without a host, is left and reported once', () => {
    const directory = spoolDirectory();
    writeFileSync(join(directory, 'auth-1-5.ndjson'), line('dead-here') + line('dead-here-2'));
    writeFileSync(join(directory, 'auth-1-6.ndjson'), line('alive-here'));
    // Host `auth`, pid 15: a dead pid here says nothing about a process on that host.
    writeFileSync(join(directory, 'auth-15.ndjson'), line('other-host'));
    writeFileSync(join(directory, '42.ndjson'), line('no-host'));
    writeFileSync(join(directory, 'notes.txt'), 'not a spool');
    const { lines, logger } = warnings();
    const asked: number[] = [];
    const spool = createAuditSpool({ directory, hostname: 'auth-1', pid: 7, isRunning: (pid) => (asked.push(pid), pid === 6), logger });
    expect(asked.sort()).toEqual([5, 6]);
    expect(spool.size).toBe(2);
    expect(readdirSync(directory).sort()).toEqual(['42.ndjson', 'auth-1-6.ndjson', 'auth-1-7.ndjson', 'auth-15.ndjson', 'notes.txt']);
    expect(lines.map((l) => [l.event, l.host, l.files])).toEqual([['audit.spool_foreign', 'auth-1', ['42.ndjson', 'auth-15.ndjson']]]);
    // Reported at start only: appending and taking log nothing more.
    spool.append([record('mine')]);
    expect(clientsOf(spool.takeAll())).toEqual(['dead-here', 'dead-here-2', 'mine']);
    expect(lines).toHaveLength(1);
  });

  it('logs nothing when every spool in the directory is this host’s', () => {
    const directory = spoolDirectory();
    writeFileSync(join(directory, 'auth-2-1.ndjson'), line('previous-container'));
    const { lines, logger } = warnings();
    const spool = createAuditSpool({ directory, hostname: 'auth-2', pid: 1, isRunning: () => true, logger });
    expect(clientsOf(spool.takeAll())).toEqual(['previous-container']);
    expect(lines).toEqual([]);
  });
});
