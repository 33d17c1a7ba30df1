/**
 * Encrypts secrets at rest (TOTP secrets, private signing keys, client secrets).
 * Rules:
 * - AES-256-GCM with a 32-byte key and a fresh random 12-byte IV for every seal;
 * - sealed form is `v1.<iv>.<ciphertext>.<tag>`, each part base64url, so a later format can coexist;
 * - `open` refuses anything malformed, tampered with or sealed under another key with
 *   `SecretBoxError` code `decrypt_failed`, and never says which part was wrong.
 */
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';
import { CodedError } from '../errors/coded-error.ts';

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export type SecretBoxErrorCode = 'decrypt_failed' | 'invalid_key';

export class SecretBoxError extends CodedError<SecretBoxErrorCode> {}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new SecretBoxError('invalid_key', 'secret box key must be 32 bytes');
  // One KeyObject for the box's life: a Buffer key is turned into one on every call (the token
  // endpoint opens the client secret on each request).
  const secretKey = createSecretKey(Buffer.from(key));
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', secretKey, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, iv, ciphertext, tag].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    },
    open(sealed) {
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== VERSION) throw decryptFailed();
      const [iv, ciphertext, tag] = parts.slice(1).map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer];
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw decryptFailed();
      try {
        const decipher = createDecipheriv('aes-256-gcm', secretKey, iv, { authTagLength: TAG_BYTES });
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
      } catch {
        throw decryptFailed();
      }
    },
  };
}

function decryptFailed(): SecretBoxError {
  return new SecretBoxError('decrypt_failed', 'sealed secret could not be decrypted (tampered with, or sealed under another key)');
}
