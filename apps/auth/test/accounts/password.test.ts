import { availableParallelism } from 'node:os';
import argon2 from 'argon2';
import { describe, expect, it, vi } from 'vitest';
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

describe('password hashing concurrency', () => {
  it('runs at most one argon2id operation per CPU core at once, and every caller gets its answer', async () => {
    const hash = await hashPassword('correct horse');
    let running = 0;
    let most = 0;
    const real = argon2.verify.bind(argon2);
    // A spy that calls the real argon2 and counts how many of its calls overlap.
    const spy = vi.spyOn(argon2, 'verify').mockImplementation(async (...args: Parameters<typeof argon2.verify>) => {
      running++;
      most = Math.max(most, running);
      try {
        return await real(...args);
      } finally {
        running--;
      }
    });
    try {
      const cores = availableParallelism();
      const passwords = Array.from({ length: cores + 3 }, (_, i) => (i % 2 === 0 ? 'correct horse' : 'wrong horse'));
      const results = await Promise.all(passwords.map((password) => verifyPassword(hash, password)));
      expect(results).toEqual(passwords.map((password) => password === 'correct horse'));
      expect(spy).toHaveBeenCalledTimes(cores + 3);
      expect(most).toBe(cores);
    } finally {
      spy.mockRestore();
    }
  });
});
