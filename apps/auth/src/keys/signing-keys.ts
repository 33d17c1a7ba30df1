/**
 * Lifecycle of the token signing keys. A key is, at a given instant `now`:
 * - pending: activates_at is in the future. It is published in the JWKS but does not sign, so
 *   resource servers and clients fetch it before the first token it signs reaches them;
 * - active: the newest key (by activation time) whose activation has passed and that is not
 *   retired. It signs: the JWKS lists it first, and oidc-provider signs with the first key;
 * - retired: replaced by a newer active key. It is published until expires_at, the activation of
 *   its successor + KeyPolicy.retainMs (max(access TTL, ID token TTL) + reload lag + clock
 *   tolerance, key-policy.ts), when every token it signed has expired;
 * - expired: past expires_at. It is left out of the JWKS and deleted by the next maintenance.
 * The JWKS lists the active key, then the pending keys (soonest first), then the retired ones
 * (most recently active first).
 *
 * Rotation:
 * - scheduled (maintainSigningKeys, run by every instance on its lazy check in app.ts): when
 *   rotation is on, no key is pending and the active key has been active for
 *   interval − prepublish, a pending key is created that activates at now + prepublish;
 * - a key whose successor has activated is superseded: it stops signing at that instant (the
 *   state is computed from the clock, no write needed) and maintenance records it as retired at
 *   the successor's activation, with expires_at as above;
 * - manual (`authctl keys rotate`, rotateSigningKeys): a new key signs at once, every other
 *   signing key retires now, and pending keys are dropped (none of them ever signed).
 *
 * Exactly one instance rotates: a scheduled key names the key it replaces (replaces_kid), and
 * that column is unique, so when several instances (sharing one database) decide at the same
 * instant, the database keeps the first insert and ignores the others (INSERT … ON CONFLICT DO
 * NOTHING, the same statement on SQLite and PostgreSQL). This needs no lock, no transaction and
 * no engine-specific SQL, and it also holds across processes on a shared SQLite file. Retiring
 * and removing are idempotent: every instance computes the same values from the same rows.
 *
 * Reloading: keySetFingerprint covers each published kid with its state at `now`, so an instance
 * rebuilds its provider when a key is added or removed and also when a pending key becomes
 * active with the rows unchanged; every instance signs with the new key at most
 * KEY_CHECK_INTERVAL_MS after its activation.
 */
import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { FIRST_KEY, type KeyStore, type SigningKey } from './key-store.ts';
import type { KeyPolicy } from './key-policy.ts';

const ALG = 'RS256';

export type KeyState = 'pending' | 'active' | 'retired' | 'expired';

export interface KeyStatus {
  readonly key: SigningKey;
  readonly state: KeyState;
  /** When the key starts (or started) signing. */
  readonly activatesAt: number;
  /** For an unretired key a newer key has replaced: when that successor activated. */
  readonly supersededAt?: number;
}

export async function generateSigningKey(
  nowMs: number,
  options: { activatesAt?: number; replacesKid?: string } = {},
): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: jwk.kty, n: jwk.n, e: jwk.e }, 'sha256');
  return {
    kid,
    alg: ALG,
    privateJwk: { ...jwk, kid, alg: ALG, use: 'sig' },
    createdAt: nowMs,
    activatesAt: options.activatesAt ?? null,
    replacesKid: options.replacesKid ?? null,
    retiredAt: null,
    expiresAt: null,
  };
}

const activationOf = (key: SigningKey): number => key.activatesAt ?? key.createdAt;

/** Most recently activated first; ties by creation time, then kid, so every instance agrees. */
function newestFirst(a: SigningKey, b: SigningKey): number {
  return activationOf(b) - activationOf(a) || b.createdAt - a.createdAt || (a.kid < b.kid ? 1 : a.kid > b.kid ? -1 : 0);
}

/** The state of every stored key at nowMs, in JWKS order (active, pending, retired), then the expired ones. */
export function keyStates(keys: readonly SigningKey[], nowMs: number): KeyStatus[] {
  const expired: KeyStatus[] = [];
  const pending: KeyStatus[] = [];
  const retired: KeyStatus[] = [];
  const started: SigningKey[] = [];
  for (const key of [...keys].sort(newestFirst)) {
    const activatesAt = activationOf(key);
    if (key.expiresAt !== null && key.expiresAt <= nowMs) expired.push({ key, state: 'expired', activatesAt });
    else if (key.retiredAt !== null) retired.push({ key, state: 'retired', activatesAt });
    else if (activatesAt > nowMs) pending.push({ key, state: 'pending', activatesAt });
    else started.push(key);
  }
  // Of the unretired keys already activated, the newest signs; each older one was superseded
  // when the next newer one activated.
  const [active, ...superseded] = started;
  const replaced = superseded.map((key, i) => ({
    key,
    state: 'retired' as const,
    activatesAt: activationOf(key),
    supersededAt: activationOf(started[i]!),
  }));
  return [
    ...(active ? [{ key: active, state: 'active' as const, activatesAt: activationOf(active) }] : []),
    ...pending.reverse(),
    ...[...retired, ...replaced].sort((a, b) => newestFirst(a.key, b.key)),
    ...expired,
  ];
}

/** Creates a signing key that signs at once when no key is active at nowMs. */
/**
 * Creates an active key when there is none. Instances starting together on an empty table (or
 * one whose keys all expired) race here; the new key names the key it follows (the newest one,
 * or FIRST_KEY) as replaces_kid, which is unique, so exactly one instance's insert is stored and
 * every instance then loads that key.
 */
export async function ensureSigningKey(store: KeyStore, nowMs: number): Promise<void> {
  const keys = await store.list();
  if (keyStates(keys, nowMs).some((s) => s.state === 'active')) return;
  await store.insert(await generateSigningKey(nowMs, { replacesKid: keys[0]?.kid ?? FIRST_KEY }));
}

export interface MaintenanceResult {
  /** The pending key this call created (null when none was due, or another instance created it). */
  scheduled: SigningKey | null;
  retired: string[];
  removed: string[];
}

/**
 * The scheduled part of the lifecycle, safe to run on every instance at once: records superseded
 * keys as retired, deletes expired keys, and creates the next pending key when it is due.
 */
export async function maintainSigningKeys(store: KeyStore, policy: KeyPolicy, nowMs: number): Promise<MaintenanceResult> {
  const states = keyStates(await store.list(), nowMs);
  const result: MaintenanceResult = { scheduled: null, retired: [], removed: [] };
  for (const status of states) {
    const expiresAt = status.supersededAt === undefined ? status.key.expiresAt : status.supersededAt + policy.retainMs;
    if (status.state === 'expired' || (expiresAt !== null && expiresAt <= nowMs)) {
      if (await store.remove(status.key.kid)) result.removed.push(status.key.kid);
    } else if (status.supersededAt !== undefined) {
      await store.retire(status.key.kid, status.supersededAt, status.supersededAt + policy.retainMs);
      result.retired.push(status.key.kid);
    }
  }
  const active = states.find((s) => s.state === 'active');
  if (policy.rotationIntervalMs === null || !active || states.some((s) => s.state === 'pending')) return result;
  if (nowMs < active.activatesAt + policy.rotationIntervalMs - policy.prepublishMs) return result;
  const next = await generateSigningKey(nowMs, { activatesAt: nowMs + policy.prepublishMs, replacesKid: active.key.kid });
  if (await store.insert(next)) result.scheduled = next;
  return result;
}

export interface ManualRotation {
  kid: string;
  retired: string[];
  /** Pending keys dropped because the new key signs at once. */
  discarded: string[];
  /** When the retired keys leave the JWKS. */
  retiredExpireAt: number;
}

/** Immediate rotation (`authctl keys rotate`): a new key signs from nowMs on; the others retire or are dropped. */
export async function rotateSigningKeys(store: KeyStore, options: { nowMs: number; retainMs: number }): Promise<ManualRotation> {
  const states = keyStates(await store.list(), options.nowMs);
  const next = await generateSigningKey(options.nowMs);
  const discarded = states.filter((s) => s.state === 'pending').map((s) => s.key.kid);
  for (const kid of discarded) await store.remove(kid);
  await store.insert(next);
  const retiredExpireAt = options.nowMs + options.retainMs;
  const retired = states.filter((s) => s.state === 'active' || (s.state === 'retired' && s.key.retiredAt === null)).map((s) => s.key.kid);
  for (const kid of retired) await store.retire(kid, options.nowMs, retiredExpireAt);
  return { kid: next.kid, retired, discarded, retiredExpireAt };
}

export interface SigningKeySet {
  /** The private JWKs oidc-provider holds, in JWKS order: the signing key first. */
  keys: JWK[];
  /** The key that signs at the instant the set was loaded. */
  signingKid: string | null;
  /** When that key started signing (epoch ms), null without one. */
  signingSince: number | null;
  fingerprint: string;
}

/** The published keys at nowMs (read only; maintainSigningKeys deletes expired keys). */
export async function loadSigningJwks(store: KeyStore, nowMs: number): Promise<SigningKeySet> {
  const published = keyStates(await store.list(), nowMs).filter((s) => s.state !== 'expired');
  const active = published.find((s) => s.state === 'active');
  return {
    keys: published.map((s) => s.key.privateJwk),
    signingKid: active?.key.kid ?? null,
    signingSince: active?.activatesAt ?? null,
    fingerprint: keySetFingerprint(published.map((s) => ({ kid: s.key.kid, state: s.state }))),
  };
}

/** A short digest of the published kids with their states, in order: it changes whenever the JWKS or the signing key changes. */
export function keySetFingerprint(keys: ReadonlyArray<{ kid: string; state: KeyState }>): string {
  return createHash('sha256')
    .update(keys.map((k) => `${k.state}:${k.kid}`).join('\n'))
    .digest('base64url')
    .slice(0, 16);
}
