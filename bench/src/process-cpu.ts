/**
 * CPU time of a process and of its threads, from Linux's /proc (clock ticks of 10 ms). Rules:
 * - a process's figure is user + system time of every thread it ran, exited ones included
 *   (`/proc/<pid>/stat`);
 * - its threads are grouped by what they run in a Node process, told by the name Node and V8
 *   give each thread (`/proc/<pid>/task/<tid>/stat`): the event loop (the main thread: JavaScript,
 *   the HTTP parser, SQLite), V8's helpers (`V8Worker`: the garbage collector's parallel and
 *   concurrent work, background compilation), libuv's pool (`libuv-worker`: the signatures, the
 *   log's sync, argon2) and the rest; a thread that ended before the read is counted in the
 *   process's figure only;
 * - a group's figure is what the suite prints next to a server's CPU per operation, so a gap
 *   between two servers shows on which side of the process it is (bench/README.md, "How it measures").
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The command name (a process's, or a thread's) and its CPU time so far, µs, from the text of a `stat` file. */
export function parseStat(stat: string): { command: string; micros: number } {
  // The command is in parentheses and may itself hold spaces and parentheses: it ends at the last ')'.
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return { command: stat.slice(stat.indexOf('(') + 1, close), micros: (Number(fields[11]) + Number(fields[12])) * 10_000 };
}

/** A process's CPU time (user + system) so far, µs. */
export function processCpu(pid: number | string): { command: string; micros: number } {
  return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** CPU time of a Node process's threads, µs, by what they run. */
export interface ThreadCpu {
  eventLoop: number;
  v8Helpers: number;
  libuvPool: number;
  other: number;
}

export const emptyThreadCpu = (): ThreadCpu => ({ eventLoop: 0, v8Helpers: 0, libuvPool: 0, other: 0 });

/** The group of a thread: the main thread's id is the process's. */
export function threadGroup(threadId: string, pid: string, command: string): keyof ThreadCpu {
  if (threadId === pid) return 'eventLoop';
  if (command === 'V8Worker') return 'v8Helpers';
  if (command === 'libuv-worker') return 'libuvPool';
  return 'other';
}

/** The CPU time of the live threads of `pid` so far, by group. */
export function threadCpu(pid: number): ThreadCpu {
  const totals = emptyThreadCpu();
  const process = String(pid);
  for (const thread of readdirSync(`/proc/${process}/task`)) {
    try {
      const { command, micros } = parseStat(readFileSync(`/proc/${process}/task/${thread}/stat`, 'utf8'));
      totals[threadGroup(thread, process, command)] += micros;
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return totals;
}
