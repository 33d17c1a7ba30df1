import { describe, expect, it } from 'vitest';
import { formatLogLine } from '../src/format-log-line.ts';

describe('formatLogLine', () => {
  it('formats a pino line as time, level, message and fields', () => {
    const line = JSON.stringify({ level: 30, time: Date.UTC(2026, 10, 21, 12, 4, 5), pid: 1, hostname: 'h', name: 'auth', request_id: 'r1', method: 'GET', path: '/healthz', status: 200, msg: 'request' });
    expect(formatLogLine(line)).toBe('12:04:05 INFO  request  request_id=r1 method=GET path=/healthz status=200');
  });

  it('quotes values with spaces and shows an error stack on its own lines', () => {
    const line = JSON.stringify({ level: 50, time: 0, msg: 'boom', reason: 'a b', err: { message: 'x', stack: 'Error: x\n    at f' } });
    expect(formatLogLine(line)).toBe('00:00:00 ERROR boom  reason="a b"\nError: x\n    at f');
  });

  it('keeps a value carrying a newline or a forged line on its own line, escaped (no log injection)', () => {
    const forged = 'alice\n00:00:01 INFO  login.password.success account_id=admin';
    const line = JSON.stringify({ level: 30, time: 0, msg: 'login.password.failure', username: forged, note: 'tab\there' });
    const out = formatLogLine(line);
    expect(out.split('\n')).toHaveLength(1);
    expect(out).toBe(`00:00:00 INFO  login.password.failure  username=${JSON.stringify(forged)} note="tab\\there"`);
  });

  it('passes anything else through unchanged', () => {
    expect(formatLogLine('  Gatehouse is running')).toBe('  Gatehouse is running');
    expect(formatLogLine('{not json')).toBe('{not json');
    expect(formatLogLine('{"a":1}')).toBe('{"a":1}');
  });
});
