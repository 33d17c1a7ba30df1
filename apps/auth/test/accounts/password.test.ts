import { describe, expect, it } from 'vitest';
import { burnPasswordCheck, DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../../src/accounts/password.ts';

describe('password hashing', () => {
  it('hashes with argon2id m=19456 t=2 p=1 and a fresh salt', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    // node-argon2 0.45 writes the PHC parameters in m,p,t order.
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct horse');
  });

  it('verifies the right password only', async () => {
    const hash = await hashPassword('correct horse');
    expect(await verifyPassword(hash, 'correct horse')).toBe(true);
    expect(await verifyPassword(hash, 'correct horse ')).toBe(false);
    expect(await verifyPassword(hash, '')).toBe(false);
  });

  it('treats a malformed stored hash as a mismatch', async () => {
    expect(await verifyPassword('not-a-hash', 'x')).toBe(false);
    expect(await verifyPassword('', 'x')).toBe(false);
  });

  it('burns time on a dummy hash made with the same parameters as real ones', async () => {
    const real = await hashPassword('x');
    const params = (hash: string) => hash.split('$').slice(1, 4).join('$');
    expect(params(DUMMY_PASSWORD_HASH)).toBe(params(real));
    expect(params(real)).toBe('argon2id$v=19$m=19456,p=1,t=2');
  });

  it('burnPasswordCheck resolves without revealing anything', async () => {
    await expect(burnPasswordCheck('whatever')).resolves.toBeUndefined();
    await expect(burnPasswordCheck('')).resolves.toBeUndefined();
  });
});
