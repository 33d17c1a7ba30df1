/**
 * Operator access to the signing keys: one service for `authctl keys` and the admin API
 * (admin/http/keys-routes.ts). Rules:
 * - list gives each key's id, algorithm, state and dates, never key material;
 * - rotate is keys/signing-keys.ts rotateSigningKeys (a new key signs at once, the previous one
 *   retires and stays published until its tokens expire, pending keys are dropped) and writes
 *   the audit event `admin.keys.rotated` naming the actor;
 * - running instances pick the new key up on their next key check (app.ts); the admin API also
 *   reloads its own instance at once (onRotated).
 */
import type { Auditor } from '../audit/auditor.ts';
import type { KeyStore, SigningKey } from '../keys/key-store.ts';
import { keyStates, rotateSigningKeys, type KeyState, type ManualRotation } from '../keys/signing-keys.ts';
import { actorFields, type Actor } from '../audit/actor.ts';

export interface KeyInfo {
  kid: string;
  alg: SigningKey['alg'];
  state: KeyState;
  createdAt: number;
  /** When it starts (or started) signing. */
  activatesAt: number;
  retiredAt: number | null;
  /** When it leaves the published key set. */
  expiresAt: number | null;
}

export interface KeyAdmin {
  /** In JWKS order: the signing key first, then pending, retired and expired keys. */
  list(): Promise<KeyInfo[]>;
  rotate(actor: Actor): Promise<ManualRotation>;
}

export interface KeyAdminDeps {
  keys: KeyStore;
  audit: Auditor;
  clock: () => number;
  /** How long a retired key stays published (key-policy.ts retainMs). */
  retainMs: number;
  /** Called after a rotation (the server reloads its keys). */
  onRotated?: () => Promise<unknown>;
}

export function createKeyAdmin(deps: KeyAdminDeps): KeyAdmin {
  return {
    async list() {
      return keyStates(await deps.keys.list(), deps.clock()).map(({ key, state, activatesAt }) => ({
        kid: key.kid,
        alg: key.alg,
        state,
        createdAt: key.createdAt,
        activatesAt,
        retiredAt: key.retiredAt,
        expiresAt: key.expiresAt,
      }));
    },
    async rotate(actor) {
      const result = await rotateSigningKeys(deps.keys, { nowMs: deps.clock(), retainMs: deps.retainMs });
      deps.audit.record('admin.keys.rotated', { ...actorFields(actor), kid: result.kid, retired: result.retired.length });
      await deps.onRotated?.();
      return result;
    },
  };
}
