import { describe, expect, it } from 'vitest';
import { createTotp } from '../../src/mfa/totp.ts';

// RFC 6238 appendix B, SHA-1 seed "12345678901234567890"; the 6-digit code is the last 6 of the 8-digit vector.
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'; // base32 of the 20 ASCII bytes
const RFC_VECTORS: Array<[number, string]> = [
  [59, '287082'],
  [1_111_111_109, '081804'],
  [1_111_111_111, '050471'],
  [1_234_567_890, '005924'],
  [2_000_000_000, '279037'],
  [20_000_000_000, '353130'],
];

const totp = createTotp();

describe('totp', () => {
  it.each(RFC_VECTORS)('matches the RFC 6238 SHA-1 vector at T=%i', async (seconds, code) => {
    expect(await totp.generate(RFC_SECRET, seconds * 1000)).toBe(code);
    expect(await totp.verify(RFC_SECRET, code, seconds * 1000)).toBe(Math.floor(seconds / 30));
  });

  it('generates 20-byte base32 secrets', () => {
    const a = totp.generateSecret();
    expect(a).toMatch(/^[A-Z2-7]{32}$/);
    expect(totp.generateSecret()).not.toBe(a);
  });

  it('accepts one step of drift either way and reports the matched step', async () => {
    const now = 1_790_000_015_000; // step 59_666_667, 15 s into it
    const step = Math.floor(now / 1000 / 30);
    expect(step).toBe(59_666_667);
    const secret = totp.generateSecret();
    expect(await totp.verify(secret, await totp.generate(secret, now), now)).toBe(step);
    expect(await totp.verify(secret, await totp.generate(secret, now - 30_000), now)).toBe(step - 1);
    expect(await totp.verify(secret, await totp.generate(secret, now + 30_000), now)).toBe(step + 1);
  });

  it('refuses codes two steps away', async () => {
    const now = 1_790_000_015_000;
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    const current = await totp.generate(secret, now);
    const older = await totp.generate(secret, now - 60_000);
    const newer = await totp.generate(secret, now + 60_000);
    // Guard: the three codes differ, so a refusal below is about the step, not a collision.
    expect(new Set([current, older, newer]).size).toBe(3);
    expect(await totp.verify(secret, older, now)).toBeNull();
    expect(await totp.verify(secret, newer, now)).toBeNull();
  });

  it('refuses malformed input without throwing', async () => {
    const now = 59_000;
    for (const code of ['', '28708', '2870822', ' 287082', '28708a', '２８７０８２', '287 082']) {
      expect(await totp.verify(RFC_SECRET, code, now)).toBeNull();
    }
    expect(await totp.verify(RFC_SECRET, '287083', now)).toBeNull();
  });

  it('builds an otpauth URI authenticator apps read', () => {
    expect(totp.uri(RFC_SECRET, { issuer: 'Gatehouse', label: 'alice' })).toBe(
      'otpauth://totp/Gatehouse:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Gatehouse',
    );
  });

  it('keeps colons out of the issuer and account name, where the label format forbids them', () => {
    expect(totp.uri(RFC_SECRET, { issuer: 'Gatehouse (localhost:3000)', label: 'a:b' })).toBe(
      'otpauth://totp/Gatehouse%20(localhost%203000):a%20b?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Gatehouse%20(localhost%203000)',
    );
  });
});
