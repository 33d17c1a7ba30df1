import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, sealedKeyId, secretBoxKeyId, SecretBoxError } from '../../src/crypto/secret-box.ts';

const key = Buffer.alloc(32, 7);

function flip(part: string): string {
  const bytes = Buffer.from(part, 'base64url');
  bytes[0] = bytes[0]! ^ 0x01;
  return bytes.toString('base64url');
}

function expectDecryptFailed(fn: () => unknown, code = 'decrypt_failed'): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SecretBoxError);
    expect((error as SecretBoxError).code).toBe(code);
    return;
  }
  expect.fail('expected open() to throw');
}

/** A value in the legacy form (`v1.<iv>.<ciphertext>.<tag>`, no key id), as the box sealed before the keyring. */
function legacySeal(sealingKey: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, ciphertext, cipher.getAuthTag()].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

describe('createSecretBox', () => {
  it('round-trips text, including unicode and the empty string', () => {
    const box = createSecretBox(key);
    for (const text of ['JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', 'hé ✓ 🔑', '']) {
      expect(box.open(box.seal(text))).toBe(text);
    }
  });

  it('produces v2.<key id>.<iv>.<ciphertext>.<tag> with a fresh 12-byte IV each time', () => {
    const box = createSecretBox(key);
    const a = box.seal('same');
    const b = box.seal('same');
    expect(a).not.toBe(b);
    const parts = a.split('.');
    expect(parts).toHaveLength(5);
    expect(parts[0]).toBe('v2');
    expect(parts[1]).toBe(box.keyId);
    expect(parts[1]).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(Buffer.from(parts[2]!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(parts[3]!, 'base64url')).toHaveLength(4);
    expect(Buffer.from(parts[4]!, 'base64url')).toHaveLength(16);
    expect(a).not.toContain('same');
    expect(sealedKeyId(a)).toBe(box.keyId);
  });

  it('names a key by a fingerprint that is stable and differs between keys', () => {
    expect(secretBoxKeyId(key)).toBe(secretBoxKeyId(Buffer.alloc(32, 7)));
    expect(secretBoxKeyId(key)).not.toBe(secretBoxKeyId(Buffer.alloc(32, 8)));
    expect(createSecretBox(key).keyId).toBe(secretBoxKeyId(key));
  });

  it('a keyring seals under its first key and opens under every key, choosing it by the id', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const before = createSecretBox(oldKey).seal('under the old key');
    const ring = createSecretBox([newKey, oldKey]);
    expect(ring.keyIds).toEqual([secretBoxKeyId(newKey), secretBoxKeyId(oldKey)]);
    expect(ring.open(before)).toBe('under the old key');
    const after = ring.seal('under the new key');
    expect(sealedKeyId(after)).toBe(secretBoxKeyId(newKey));
    expect(createSecretBox(newKey).open(after)).toBe('under the new key');
    // The old key alone cannot open it, and says which key is missing.
    expect(() => createSecretBox(oldKey).open(after)).toThrow(`sealed secret is under key ${secretBoxKeyId(newKey)}, which is not in the keyring (AUTH_ENCRYPTION_KEYS)`);
    expectDecryptFailed(() => createSecretBox(oldKey).open(after), 'unknown_key');
  });

  it('opens legacy values without a key id by trying each key of the ring', () => {
    const oldKey = randomBytes(32);
    const legacy = legacySeal(oldKey, 'JBSWY3DPEHPK3PXP');
    expect(sealedKeyId(legacy)).toBeNull();
    expect(createSecretBox(oldKey).open(legacy)).toBe('JBSWY3DPEHPK3PXP');
    expect(createSecretBox([randomBytes(32), oldKey]).open(legacy)).toBe('JBSWY3DPEHPK3PXP');
    expectDecryptFailed(() => createSecretBox([randomBytes(32), randomBytes(32)]).open(legacy));
  });

  it('refuses a value whose key id was changed to another key of the ring', () => {
    const other = randomBytes(32);
    const ring = createSecretBox([key, other]);
    const sealed = ring.seal('secret value');
    expectDecryptFailed(() => ring.open(sealed.replace(ring.keyId, secretBoxKeyId(other))));
  });

  it('refuses a tampered IV, ciphertext or tag', () => {
    const box = createSecretBox(key);
    const parts = box.seal('secret value').split('.');
    for (const index of [2, 3, 4]) {
      const tampered = [...parts];
      tampered[index] = flip(tampered[index]!);
      expectDecryptFailed(() => box.open(tampered.join('.')));
    }
  });

  it('refuses a value sealed under another key', () => {
    const sealed = createSecretBox(key).seal('secret value');
    // Its key id is not in that ring: refused as sealed under an unknown key.
    expectDecryptFailed(() => createSecretBox(randomBytes(32)).open(sealed), 'unknown_key');
  });

  it('refuses malformed input', () => {
    const box = createSecretBox(key);
    for (const bad of ['', 'plain', 'v2.a.b.c', 'v1.a.b', 'v3.a.b.c.d', box.seal('x').replace(/^v2/, 'v0'), box.seal('x').replace(/^v2/, 'v1')]) {
      expectDecryptFailed(() => box.open(bad));
    }
  });

  it('requires a 32-byte key', () => {
    expect(() => createSecretBox(Buffer.alloc(16))).toThrow('secret box key must be 32 bytes');
    expect(() => createSecretBox([key, Buffer.alloc(31)])).toThrow('secret box key must be 32 bytes');
    expect(() => createSecretBox([])).toThrow('the secret box needs at least one key');
  });
});

describe('a rolling key rotation (apps/auth/README.md, Rotating the key): every pair of instances running at once reads what the other sealed', () => {
  const old = Buffer.alloc(32, 1);
  const next = Buffer.alloc(32, 2);
  const swap = (a: ReturnType<typeof createSecretBox>, b: ReturnType<typeof createSecretBox>) => {
    expect(b.open(a.seal('sealed by a'))).toBe('sealed by a');
    expect(a.open(b.seal('sealed by b'))).toBe('sealed by b');
  };

  it('phase 1 rolls <old>,<new> out while <old> still runs: both seal under the old key', () => {
    const before = createSecretBox([old]);
    const phase1 = createSecretBox([old, next]);
    expect(phase1.keyId).toBe(before.keyId);
    swap(before, phase1);
  });

  it('phase 2 rolls <new>,<old> out while <old>,<new> still runs: the new key seals, and every instance already opens it', () => {
    const phase1 = createSecretBox([old, next]);
    const phase2 = createSecretBox([next, old]);
    expect(sealedKeyId(phase2.seal('x'))).toBe(secretBoxKeyId(next));
    expect(sealedKeyId(phase1.seal('x'))).toBe(secretBoxKeyId(old));
    swap(phase1, phase2);
  });

  it('why two phases: in a one-step roll an instance still on <old> cannot open what a restarted <new>,<old> sealed', () => {
    const sealed = createSecretBox([next, old]).seal('a TOTP secret enrolled during the roll');
    expectDecryptFailed(() => createSecretBox([old]).open(sealed), 'unknown_key');
  });
});
