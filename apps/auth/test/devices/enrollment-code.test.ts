import { describe, expect, it } from 'vitest';
import { ENROLLMENT_CODE_ALPHABET, newEnrollmentCode, readEnrollmentCode } from '../../src/devices/enrollment-code.ts';

describe('device enrollment codes', () => {
  it('are twelve characters of Crockford base32 (no I, L, O, U) in groups of four: 60 random bits', () => {
    expect(ENROLLMENT_CODE_ALPHABET).toHaveLength(32);
    expect(ENROLLMENT_CODE_ALPHABET).not.toMatch(/[ILOU]/);
    const codes = new Set(Array.from({ length: 2000 }, () => newEnrollmentCode()));
    expect(codes.size).toBe(2000);
    for (const code of codes) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    // Every character of the alphabet turns up: no character is left out of the draw.
    expect(new Set([...codes].join('').replace(/-/g, '')).size).toBe(32);
  });

  it('are read in any case, with spaces and dashes ignored, I and L as 1, O as 0', () => {
    expect(readEnrollmentCode('ABCD-EFGH-JKMN')).toBe('ABCDEFGHJKMN');
    expect(readEnrollmentCode('abcd-efgh-jkmn')).toBe('ABCDEFGHJKMN');
    expect(readEnrollmentCode(' abcd efgh  jkmn ')).toBe('ABCDEFGHJKMN');
    expect(readEnrollmentCode('abcdefghjkmn')).toBe('ABCDEFGHJKMN');
    expect(readEnrollmentCode('I0OL-1111-2222')).toBe('100111112222');
    expect(readEnrollmentCode('ABCD-EFGH-JKMU')).toBeUndefined();
    expect(readEnrollmentCode('ABCD-EFGH-JKM')).toBeUndefined();
    expect(readEnrollmentCode('ABCD-EFGH-JKMNP')).toBeUndefined();
    expect(readEnrollmentCode('ABCD_EFGH_JKMN')).toBeUndefined();
    expect(readEnrollmentCode('')).toBeUndefined();
  });
});
