import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkPassword, PasswordPolicyError, type PasswordRule } from '../../src/accounts/password-policy.ts';

function refusal(password: string): { rule: PasswordRule; message: string } | undefined {
  try {
    checkPassword(password);
    return undefined;
  } catch (error) {
    if (!(error instanceof PasswordPolicyError)) throw error;
    return { rule: error.code, message: error.message };
  }
}

describe('password policy (NIST SP 800-63B)', () => {
  it.each([
    ['', 'empty', 'password is empty'],
    ['eleven-char', 'too_short', 'password must be at least 12 characters'],
    ['short    pass', 'too_short', 'password must be at least 12 characters'],
    ['🦊'.repeat(11), 'too_short', 'password must be at least 12 characters'],
    ['x'.repeat(129), 'too_long', 'password must be at most 128 characters'],
    ['🦊'.repeat(129), 'too_long', 'password must be at most 128 characters'],
    ['password1234', 'common', 'password is on the list of common or breached passwords; choose another'],
    ['LeaveMeAlone', 'common', 'password is on the list of common or breached passwords; choose another'],
    ['1QAZ2WSX3EDC', 'common', 'password is on the list of common or breached passwords; choose another'],
  ] as const)('refuses %j: %s', (password, rule, message) => {
    expect(refusal(password)).toEqual({ rule, message });
  });

  it('counts code points: 12 emoji (24 UTF-16 units) pass, and so do 128 of them', () => {
    expect('🦊'.repeat(12)).toHaveLength(24);
    expect(refusal('🦊'.repeat(12))).toBeUndefined();
    expect(refusal('🦊'.repeat(128))).toBeUndefined();
    expect(refusal('ünïcødé-pässwörd'.slice(0, 12))).toBeUndefined();
  });

  it('has no composition rule: lower-case letters only, or digits only, are fine when uncommon', () => {
    expect(refusal('gatehousemoat')).toBeUndefined();
    expect(refusal('918273645501')).toBeUndefined();
  });

  it('ships a list of tens of thousands of lowercased passwords, including short ones', () => {
    const lines = readFileSync(new URL('../../assets/common-passwords.txt', import.meta.url), 'utf8').split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(40_000);
    expect(lines.slice(0, 3)).toEqual(['123456', 'password', '12345678']);
    expect(lines.every((line) => line === line.toLowerCase())).toBe(true);
    expect(new Set(lines).size).toBe(lines.length);
  });
});
