import { hash, timingSafeEqual } from 'node:crypto';

/** The SHA-256 digest safeEqual compares: a secret's fixed-length stand-in. */
export function secretDigest(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

/**
 * Compares two secrets in constant time. Both sides are hashed first so that neither
 * the comparison nor an early length check reveals how long the expected value is.
 */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(secretDigest(a), secretDigest(b));
}
