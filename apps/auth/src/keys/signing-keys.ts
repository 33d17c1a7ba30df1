/**
 * Lifecycle of the token signing keys. Rules:
 * - the active key is the newest key that is not retired; it is listed first, so oidc-provider signs with it;
 * - rotation adds a new key and retires every previously active key, keeping it published for
 *   keepForSeconds (the longest lifetime of a token it signed) so those tokens still verify;
 * - keys past expiresAt are deleted when the set is loaded;
 * - every instance reloads when keySetFingerprint of the loaded set changes.
 */
import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { KeyStore, SigningKey } from './key-store.ts';

const ALG = 'RS256';

export async function generateSigningKey(nowMs: number): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: jwk.kty, n: jwk.n, e: jwk.e }, 'sha256');
  return {
    kid,
    alg: ALG,
    privateJwk: { ...jwk, kid, alg: ALG, use: 'sig' },
    createdAt: nowMs,
    retiredAt: null,
    expiresAt: null,
  };
}

/** Creates a signing key when the store holds no active one. */
export async function ensureSigningKey(store: KeyStore, nowMs: number): Promise<void> {
  const keys = await store.list();
  if (!keys.some((k) => k.retiredAt === null)) await store.insert(await generateSigningKey(nowMs));
}

export async function rotateSigningKeys(
  store: KeyStore,
  options: { nowMs: number; keepForSeconds: number },
): Promise<{ kid: string; retired: string[] }> {
  const previous = (await store.list()).filter((k) => k.retiredAt === null);
  const next = await generateSigningKey(options.nowMs);
  await store.insert(next);
  const expiresAt = options.nowMs + options.keepForSeconds * 1000;
  for (const key of previous) await store.retire(key.kid, options.nowMs, expiresAt);
  return { kid: next.kid, retired: previous.map((k) => k.kid) };
}

/**
 * The private JWKs oidc-provider should hold: the active key first, then the other keys that
 * may still verify tokens (retired but unexpired), newest first. Deletes expired keys.
 */
export async function loadSigningJwks(store: KeyStore, nowMs: number): Promise<{ keys: JWK[] }> {
  const live: SigningKey[] = [];
  for (const key of await store.list()) {
    if (key.expiresAt !== null && key.expiresAt <= nowMs) await store.remove(key.kid);
    else live.push(key);
  }
  // list() is newest first, so the first unretired key is the active one; a stable sort keeps the rest in order.
  live.sort((a, b) => Number(a.retiredAt !== null) - Number(b.retiredAt !== null));
  return { keys: live.map((k) => k.privateJwk) };
}

/** A short digest of the key ids in order: it changes when a key is added or removed, or another key becomes active. */
export function keySetFingerprint(keys: ReadonlyArray<{ kid?: string | undefined }>): string {
  return createHash('sha256')
    .update(keys.map((k) => k.kid ?? '').join('\n'))
    .digest('base64url')
    .slice(0, 16);
}
