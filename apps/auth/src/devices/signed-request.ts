/**
 * How the web authenticator proves which device speaks. Rules:
 * - every message starts with SIGNATURE_CONTEXT and names its purpose (`enroll`, `list`,
 *   `answer`), so a signature made for one purpose is worthless for another; the messages are
 *   built by public/authenticator/signed-message.js, the same module the browser signs with;
 * - signatures are ECDSA P-256 / SHA-256 in WebCrypto's raw form (r‖s, 64 bytes), base64url;
 * - a listing request carries a timestamp (epoch ms) within MAX_SKEW_MS of the server clock and a
 *   fresh nonce, recorded per device, so a captured request cannot be replayed;
 * - a report ("this wasn't me") signs the transaction id and the device id;
 * - an answer signs the transaction id, the decision, the chosen number and the device id: it
 *   cannot be moved to another push, decision or number, and the push store decides each
 *   transaction once, so replaying it changes nothing;
 * - public keys must be EC P-256 JWKs whose point WebCrypto accepts; nothing else is stored.
 */
import { webcrypto } from 'node:crypto';
import type { PublicKeyJwk } from './device-store.ts';

// One builder for both sides; the path is the same from src/ and from dist/ (both two levels deep).
export { answerMessage, enrollMessage, listMessage, normalizeEnrollmentCode, reportMessage, SIGNATURE_CONTEXT } from '../../public/authenticator/signed-message.js';
export type { Decision } from '../../public/authenticator/signed-message.js';

export const MAX_SKEW_MS = 60_000;
const B64URL = /^[A-Za-z0-9_-]+$/;

async function importPublicKey(jwk: PublicKeyJwk): Promise<webcrypto.CryptoKey> {
  return webcrypto.subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, ext: true }, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
}

/** The JWK reduced to its public members when it is a valid P-256 public key, else undefined. */
export async function parsePublicKey(value: unknown): Promise<PublicKeyJwk | undefined> {
  if (!value || typeof value !== 'object') return undefined;
  const { kty, crv, x, y, d } = value as Record<string, unknown>;
  if (kty !== 'EC' || crv !== 'P-256' || d !== undefined) return undefined;
  if (typeof x !== 'string' || typeof y !== 'string' || x.length !== 43 || y.length !== 43 || !B64URL.test(x) || !B64URL.test(y)) return undefined;
  const jwk: PublicKeyJwk = { kty, crv, x, y };
  try {
    await importPublicKey(jwk);
  } catch {
    return undefined;
  }
  return jwk;
}

/** True when `signature` (base64url raw r‖s) is the key's signature of `message`. Never throws. */
export async function verifySignature(jwk: PublicKeyJwk, message: string, signature: string): Promise<boolean> {
  if (signature.length !== 86 || !B64URL.test(signature)) return false;
  try {
    const key = await importPublicKey(jwk);
    return await webcrypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, Buffer.from(signature, 'base64url'), Buffer.from(message, 'utf8'));
  } catch {
    return false;
  }
}

/** A listing request's timestamp is acceptable: decimal epoch ms within MAX_SKEW_MS of now. */
export function freshTimestamp(timestamp: string, nowMs: number): boolean {
  return /^\d{1,16}$/.test(timestamp) && Math.abs(Number(timestamp) - nowMs) <= MAX_SKEW_MS;
}
