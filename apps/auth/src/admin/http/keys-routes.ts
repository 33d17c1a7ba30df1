/**
 * /admin/v1/keys: the signing keys, through the key service (admin/key-admin.ts, shared with
 * `authctl keys`). Rules:
 * - both routes need `admin:keys`;
 * - a key is shown by id, algorithm, state and dates, never its key material (public or private:
 *   the public keys are at the JWKS endpoint);
 * - rotate makes a new key sign at once on this instance (the others follow at their next key
 *   check) and answers the new kid and the retired ones; the change is audited with the actor.
 */
import type { KeyAdmin, KeyInfo } from '../key-admin.ts';
import type { AdminRouter } from './admin-router.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function keyJson(key: KeyInfo) {
  return {
    kid: key.kid,
    alg: key.alg,
    state: key.state,
    created_at: iso(key.createdAt),
    activates_at: iso(key.activatesAt),
    retired_at: iso(key.retiredAt),
    expires_at: iso(key.expiresAt),
  };
}

export function addKeyRoutes(router: AdminRouter, deps: { keys: KeyAdmin }): void {
  router.add({
    method: 'GET',
    path: '/keys',
    scope: 'admin:keys',
    async handle() {
      return { status: 200, body: { items: (await deps.keys.list()).map(keyJson) } };
    },
  });

  router.add({
    method: 'POST',
    path: '/keys/rotate',
    scope: 'admin:keys',
    async handle({ actor }) {
      const result = await deps.keys.rotate(actor);
      return {
        status: 200,
        body: {
          kid: result.kid,
          retired: result.retired,
          retired_expire_at: result.retired.length > 0 ? iso(result.retiredExpireAt) : null,
          discarded: result.discarded,
        },
      };
    },
  });
}
