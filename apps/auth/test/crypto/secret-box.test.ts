import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, SecretBoxError } from '../../src/crypto/secret-box.ts';

const key = Buffer.alloc(32, 7);

function flip(part: string): string {
  const bytes = Buffer.from(part, 'base64url');
  bytes[0] = bytes[0]! ^ 0x01;
  return bytes.toString('base64url');
}

function expectDecryptFailed(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SecretBoxError);
    expect((error as SecretBoxError).code).toBe('decrypt_failed');
    return;
  }
  expect.fail('expected open() to throw');
}

describe('createSecretBox', () => {
  it('round-trips text, including unicode and the empty string', () => {
    const box = createSecretBox(key);
    for (const text of ['JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', 'hé ✓ 🔑', '']) {
      expect(box.open(box.seal(text))).toBe(text);
    }
  });

  it('produces v1.<iv>.<ciphertext>.<tag> with a fresh 12-byte IV each time', () => {
    const box = createSecretBox(key);
    const a = box.seal('same');
    const b = box.seal('same');
    expect(a).not.toBe(b);
    const parts = a.split('.');
    expect(parts).toHaveLength(4);
    expect(parts[0]).toBe('v1');
    expect(Buffer.from(parts[1]!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(parts[2]!, 'base64url')).toHaveLength(4);
    expect(Buffer.from(parts[3]!, 'base64url')).toHaveLength(16);
    expect(a).not.toContain('same');
  });

  it('refuses a tampered IV, ciphertext or tag', () => {
    const box = createSecretBox(key);
    const parts = box.seal('secret value').split('.');
    for (const index of [1, 2, 3]) {
      const tampered = [...parts];
      tampered[index] = flip(tampered[index]!);
      expectDecryptFailed(() => box.open(tampered.join('.')));
    }
  });

  it('refuses a value sealed under another key', () => {
    const sealed = createSecretBox(key).seal('secret value');
    expectDecryptFailed(() => createSecretBox(randomBytes(32)).open(sealed));
  });

  it('refuses malformed input', () => {
    const box = createSecretBox(key);
    for (const bad of ['', 'plain', 'v2.a.b.c', 'v1.a.b', box.seal('x').replace(/^v1/, 'v0')]) {
      expectDecryptFailed(() => box.open(bad));
    }
  });

  it('requires a 32-byte key', () => {
    expect(() => createSecretBox(Buffer.alloc(16))).toThrow('secret box key must be 32 bytes');
  });
});
