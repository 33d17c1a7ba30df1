import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bool, checkedString, list, logLevel, port, seconds, trimTrailingSlashes, url } from '../src/index.ts';

const ok = <T extends z.ZodType>(schema: T, value: string) => schema.parse(value) as z.output<T>;
const refused = (schema: z.ZodType, value: string) => schema.safeParse(value).success === false;

describe('the env primitives', () => {
  it('bool: true/1/yes and false/0/no only', () => {
    expect(['true', '1', 'yes'].map((v) => ok(bool, v))).toEqual([true, true, true]);
    expect(['false', '0', 'no'].map((v) => ok(bool, v))).toEqual([false, false, false]);
    expect(['TRUE', 'on', ''].map((v) => refused(bool, v))).toEqual([true, true, true]);
  });

  it('seconds: whole and non-negative; a call site asks for more with .positive() or .min()', () => {
    expect(ok(seconds, '0')).toBe(0);
    expect(ok(seconds, '3600')).toBe(3600);
    expect(['-1', '1.5', 'soon'].map((v) => refused(seconds, v))).toEqual([true, true, true]);
    expect(refused(seconds.positive(), '0')).toBe(true);
    expect(ok(seconds.positive(), '1')).toBe(1);
    expect(refused(seconds.min(60), '59')).toBe(true);
  });

  it('list: comma-separated, trimmed, empty items dropped', () => {
    expect(ok(list, ' a, b ,,c ')).toEqual(['a', 'b', 'c']);
    expect(ok(list, '')).toEqual([]);
  });

  it('port: 0 to 65535', () => {
    expect(ok(port, '0')).toBe(0);
    expect(ok(port, '65535')).toBe(65535);
    expect(['-1', '65536', 'http'].map((v) => refused(port, v))).toEqual([true, true, true]);
  });

  it("logLevel: pino's levels and silent", () => {
    expect(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((v) => ok(logLevel, v))).toHaveLength(7);
    expect(refused(logLevel, 'verbose')).toBe(true);
  });

  it('url: an absolute URL without trailing slashes', () => {
    expect(ok(url, 'https://auth.example.com/')).toBe('https://auth.example.com');
    expect(ok(url, 'https://auth.example.com/tenant//')).toBe('https://auth.example.com/tenant');
    expect(ok(url, 'http://localhost:3000')).toBe('http://localhost:3000');
    expect(refused(url, 'not a url')).toBe(true);
    expect(trimTrailingSlashes('http://a/b/')).toBe('http://a/b');
  });

  it('checkedString: the checker names the problem', () => {
    const even = checkedString((v) => (v.length % 2 ? 'odd length' : undefined));
    expect(ok(even, 'ab')).toBe('ab');
    const result = even.safeParse('abc');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('odd length');
  });
});
