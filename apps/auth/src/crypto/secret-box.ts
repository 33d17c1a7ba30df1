/**
 * Encrypts secrets at rest (TOTP secrets, private signing keys, client secrets) under a keyring.
 * Rules:
 * - AES-256-GCM with 32-byte keys and a fresh random 12-byte IV for every seal;
 * - the ring is ordered: the first key seals, every key opens (AUTH_ENCRYPTION_KEYS), so a new
 *   key is put first, the data re-encrypted (`authctl secrets rekey`), and the old key dropped;
 * - a key is known by its id: the first 6 bytes of SHA-256 over a fixed label and the key,
 *   base64url (8 characters). It names the key in sealed values and messages without revealing it;
 * - sealed form is `v2.<key id>.<iv>.<ciphertext>.<tag>`, each part base64url; `v2.<key id>` is
 *   authenticated too (GCM additional data), so a value cannot be relabelled to another key;
 * - the legacy form `v1.<iv>.<ciphertext>.<tag>` (no key id) still opens, by trying each key of
 *   the ring in order;
 * - `open` refuses a value sealed under a key id that is not in the ring with `SecretBoxError`
 *   `unknown_key` (the message names the id), and anything malformed, tampered with or not
 *   opened by any key with `decrypt_failed`, never saying which part was wrong.
 */
import { createCipheriv, createDecipheriv, createHash, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { CodedError } from '../errors/coded-error.ts';

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
  /** The id of the key that seals (the ring's first). */
  readonly keyId: string;
  /** The ids of every key of the ring, the sealing key first. */
  readonly keyIds: readonly string[];
}

export type SecretBoxErrorCode = 'decrypt_failed' | 'invalid_key' | 'unknown_key';

export class SecretBoxError extends CodedError<SecretBoxErrorCode> {}

const VERSION = 'v2';
const LEGACY_VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_LABEL = 'gatehouse secret-box key id\0';

/** The id of a 32-byte key (see the rules above). */
export function secretBoxKeyId(key: Buffer): string {
  return createHash('sha256').update(KEY_ID_LABEL).update(key).digest().subarray(0, 6).toString('base64url');
}

/**
 * The key id a sealed value names: its id for the current form, `null` for the legacy form (no
 * id: any key of the ring may open it), undefined for something that is not a sealed value.
 */
export function sealedKeyId(sealed: string): string | null | undefined {
  const parts = sealed.split('.');
  if (parts.length === 5 && parts[0] === VERSION) return parts[1];
  if (parts.length === 4 && parts[0] === LEGACY_VERSION) return null;
  return undefined;
}

export function createSecretBox(keys: Buffer | readonly Buffer[]): SecretBox {
  const ring = Buffer.isBuffer(keys) ? [keys] : [...keys];
  if (ring.length === 0) throw new SecretBoxError('invalid_key', 'the secret box needs at least one key');
  if (ring.some((key) => key.length !== 32)) throw new SecretBoxError('invalid_key', 'secret box key must be 32 bytes');
  // One KeyObject per key for the box's life: a Buffer key is turned into one on every call (the
  // token endpoint opens the client secret on each request).
  const entries = ring.map((key) => ({ id: secretBoxKeyId(key), key: createSecretKey(Buffer.from(key)) }));
  const byId = new Map(entries.map((entry) => [entry.id, entry.key]));
  const sealer = entries[0]!;

  function decrypt(key: KeyObject, iv: Buffer, ciphertext: Buffer, tag: Buffer, aad: Buffer | undefined): string | undefined {
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      if (aad) decipher.setAAD(aad);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }

  const decode = (parts: string[]) => parts.map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer];

  return {
    keyId: sealer.id,
    keyIds: entries.map((entry) => entry.id),
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const header = `${VERSION}.${sealer.id}`;
      const cipher = createCipheriv('aes-256-gcm', sealer.key, iv);
      cipher.setAAD(Buffer.from(header));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [header, ...[iv, ciphertext, cipher.getAuthTag()].map((p) => p.toString('base64url'))].join('.');
    },
    open(sealed) {
      const keyId = sealedKeyId(sealed);
      if (keyId === undefined) throw decryptFailed();
      const parts = sealed.split('.');
      const [iv, ciphertext, tag] = decode(parts.slice(keyId === null ? 1 : 2));
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw decryptFailed();
      if (keyId === null) {
        for (const { key } of entries) {
          const plaintext = decrypt(key, iv, ciphertext, tag, undefined);
          if (plaintext !== undefined) return plaintext;
        }
        throw decryptFailed();
      }
      const key = byId.get(keyId);
      if (!key) throw new SecretBoxError('unknown_key', `sealed secret is under key ${keyId}, which is not in the keyring (AUTH_ENCRYPTION_KEYS)`);
      const plaintext = decrypt(key, iv, ciphertext, tag, Buffer.from(`${VERSION}.${keyId}`));
      if (plaintext === undefined) throw decryptFailed();
      return plaintext;
    },
  };
}

function decryptFailed(): SecretBoxError {
  return new SecretBoxError('decrypt_failed', 'sealed secret could not be decrypted (tampered with, or sealed under a key not in the keyring)');
}
