import { describe, expect, it } from 'vitest';
import { assertToken68, bearerToken } from '../../src/auth/bearer.ts';
import { ApiError } from '../../src/errors/api-error.ts';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof ApiError ? `${error.status} ${error.code}` : 'other';
  }
  return undefined;
}

describe('bearerToken', () => {
  it('takes the token68 after a case-insensitive Bearer', () => {
    expect(bearerToken('Bearer abc.DEF-_~+/=', false, 'r')).toBe('abc.DEF-_~+/=');
    expect(bearerToken('bearer xyz', false, 'r')).toBe('xyz');
    expect(bearerToken('BEARER  xyz ', false, 'r')).toBe('xyz');
  });

  it.each([
    [undefined, false, '401 missing_token'],
    ['', false, '401 missing_token'],
    ['Basic abc', false, '401 missing_token'],
    ['Bearerx abc', false, '401 missing_token'],
    ['Bearer abc', true, '400 invalid_request'],
  ])('%j (token in query: %s) → %s', (header, inQuery, expected) => {
    expect(codeOf(() => bearerToken(header, inQuery, 'r'))).toBe(expected);
  });

  it.each(['Bearer', 'Bearer ', 'Bearer a b', 'Bearer a"b', 'Bearer a=b', 'Bearer é'])('%j is malformed', (header) => {
    expect(codeOf(() => assertToken68(bearerToken(header, false, 'r'), 'r'))).toBe('400 invalid_request');
  });
});
