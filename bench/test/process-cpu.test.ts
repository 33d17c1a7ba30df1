import { describe, expect, it } from 'vitest';
import { parseStat, processCpu, threadCpu, threadGroup } from '../src/process-cpu.ts';

// A thread's stat line as Linux writes it: pid, (comm), state, then the numeric fields; utime and
// stime are fields 14 and 15 (clock ticks).
const stat = (command: string, utime: number, stime: number) =>
  `4242 (${command}) S 1 4242 4242 0 -1 4194560 1234 0 0 0 ${utime} ${stime} 0 0 20 0 11 0 987 1103921152 24000 18446744073709551615`;

describe('parseStat', () => {
  it('reads the command and user + system time in µs (ticks of 10 ms)', () => {
    expect(parseStat(stat('node', 150, 7))).toEqual({ command: 'node', micros: 1_570_000 });
  });

  it('takes the command up to the last parenthesis, so a name with spaces and parentheses stays whole', () => {
    expect(parseStat(stat('a (b) c', 1, 2))).toEqual({ command: 'a (b) c', micros: 30_000 });
  });
});

describe('threadGroup', () => {
  it('tells the event loop by its id and the helpers by the names Node and V8 give them', () => {
    expect(threadGroup('4242', '4242', 'MainThread')).toBe('eventLoop');
    expect(threadGroup('4243', '4242', 'V8Worker')).toBe('v8Helpers');
    expect(threadGroup('4247', '4242', 'libuv-worker')).toBe('libuvPool');
    expect(threadGroup('4250', '4242', 'node')).toBe('other');
  });
});

describe('threadCpu', () => {
  it("splits this process's own CPU time by its threads, no more than the process's figure", () => {
    const until = Date.now() + 50;
    let spin = 0;
    while (Date.now() < until) spin++;
    const threads = threadCpu(process.pid);
    expect(spin).toBeGreaterThan(0);
    expect(Object.keys(threads).sort()).toEqual(['eventLoop', 'libuvPool', 'other', 'v8Helpers']);
    expect(threads.eventLoop).toBeGreaterThan(0);
    const sum = threads.eventLoop + threads.v8Helpers + threads.libuvPool + threads.other;
    expect(sum).toBeLessThanOrEqual(processCpu(process.pid).micros);
  });
});
