/**
 * Direct lines (src/direct-line.ts): the same JSON text pino writes for the same fields, level
 * and message, byte for byte apart from the time; the level, the redaction list, bindings of a
 * child logger, and the fallback to pino for anything but plain fields.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { audit, createLogger, directLine } from '../src/index.ts';

function collecting(level = 'info') {
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      raw.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ name: 'api', level, destination }), raw };
}
const withoutTime = (line: string) => line.replace(/,"time":\d+/, ',"time":0');

describe('direct lines', () => {
  it('write what pino writes for the same fields, escapes and all', () => {
    const { logger, raw } = collecting();
    const write = directLine(logger)!;
    const cases: Array<Record<string, unknown>> = [
      { event: 'http_request', request_id: 'a1b2', method: 'GET', path: '/api/movies/1', status: 200, duration_ms: 3, version: 'v2', representation: 'json', client_id: 'api', subject: 'u-1' },
      { path: '/a"b\\c', subject: 'tab\there\nnew line', other: 'é ✓ 🎬 \u2028', long: 'x'.repeat(60) + '"', n: -1.5e-7, big: 2 ** 60, bad: Number.NaN, inf: Infinity, yes: true, no: false, gone: undefined },
      {},
    ];
    for (const fields of cases) {
      write('info', fields, 'request');
      logger.info(fields, 'request');
    }
    expect(raw).toHaveLength(6);
    for (let i = 0; i < raw.length; i += 2) {
      expect(withoutTime(raw[i]!)).toBe(withoutTime(raw[i + 1]!));
      expect(raw[i]!.endsWith('}\n')).toBe(true);
    }
    expect(JSON.parse(raw[0]!)).toMatchObject({ level: 30, name: 'api', event: 'http_request', status: 200, msg: 'request' });
    expect(JSON.parse(raw[2]!)).toMatchObject({ bad: null, inf: null, subject: 'tab\there\nnew line' });
  });

  it('keeps to the logger’s level, also when it changes', () => {
    const { logger, raw } = collecting('info');
    const write = directLine(logger)!;
    write('debug', { a: 1 }, 'quiet');
    write('error', { a: 2 }, 'loud');
    logger.level = 'debug';
    write('debug', { a: 3 }, 'now heard');
    logger.level = 'error';
    write('info', { a: 4 }, 'quiet again');
    expect(raw.map((line) => JSON.parse(line) as { level: number; a: number })).toEqual([
      expect.objectContaining({ level: 50, a: 2, msg: 'loud' }),
      expect.objectContaining({ level: 20, a: 3, msg: 'now heard' }),
    ]);
  });

  it('leaves out fields on the redaction list, and hands an object to pino for its redaction', () => {
    const { logger, raw } = collecting();
    const write = directLine(logger)!;
    write('info', { user: 'ann', password: 'hunter2', code: 'abc', access_token: 'tok' }, 'fields');
    write('info', { user: 'ann', req: { headers: { authorization: 'Bearer tok', accept: '*/*' } } }, 'nested');
    const lines = raw.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toEqual({ level: 30, time: lines[0]!.time, pid: process.pid, hostname: lines[0]!.hostname, name: 'api', user: 'ann', msg: 'fields' });
    expect(lines[1]).toMatchObject({ user: 'ann', req: { headers: { accept: '*/*' } }, msg: 'nested' });
    expect(raw.join('')).not.toMatch(/hunter2|Bearer|"tok"|abc/);
  });

  it('carries a child logger’s bindings, and is not offered for other loggers', () => {
    const { logger, raw } = collecting();
    const child = logger.child({ instance: 'app-one', secret: 'no' });
    directLine(child)!('info', { a: 1 }, 'from the child');
    child.info({ a: 1 }, 'from the child');
    expect(withoutTime(raw[0]!)).toBe(withoutTime(raw[1]!));
    expect(JSON.parse(raw[0]!)).toMatchObject({ instance: 'app-one', a: 1 });
    expect(raw[0]).not.toContain('"secret"');
    expect(directLine(pino({ enabled: false }))).toBeUndefined();
    // A child made by pino itself, not through createLogger, inherits no writer: its bindings would be lost.
    expect(directLine(Object.create(logger) as object)).toBeUndefined();
    expect(directLine({ info() {}, debug() {}, error() {} })).toBeUndefined();
  });

  it('carry audit lines, of a child logger too, with the bytes pino writes', () => {
    const { logger, raw } = collecting();
    const child = logger.child({});
    const fields = { client_id: 'api', grant_type: 'client_credentials', account_id: undefined, retry_after: 3, known_device: false };
    audit(child, 'token.issued', fields);
    child.info({ audit: true, event: 'token.issued', ...fields }, 'token.issued');
    audit(child, 'login.failure', { username: 'ann', password: 'hunter2' });
    expect(raw).toHaveLength(3);
    expect(withoutTime(raw[0]!)).toBe(withoutTime(raw[1]!));
    expect(JSON.parse(raw[0]!)).toMatchObject({ level: 30, audit: true, event: 'token.issued', client_id: 'api', retry_after: 3, known_device: false, msg: 'token.issued' });
    expect(raw[2]).not.toContain('hunter2');
    // Written directly, not through pino's general path; a logger pino made itself still logs through it.
    const viaPino = vi.spyOn(child, 'info');
    audit(child, 'token.issued', fields);
    expect(viaPino).not.toHaveBeenCalled();
    const plain = pino({ base: null, timestamp: false }, new Writable({ write: (chunk, _e, done) => (raw.push(String(chunk)), done()) }));
    audit(plain, 'token.issued', fields);
    expect(raw.at(-1)).toBe('{"level":30,"audit":true,"event":"token.issued","client_id":"api","grant_type":"client_credentials","retry_after":3,"known_device":false,"msg":"token.issued"}\n');
  });
});
