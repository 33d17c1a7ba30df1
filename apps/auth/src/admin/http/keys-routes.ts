/**
 * /admin/v1/keys: the signing keys, through the key service (admin/key-admin.ts, shared with
 * `authctl keys`). Rules:
 * - both routes need `admin:keys`;
 * - keys and rotations are shown in the shapes of admin/json/key-json.ts, as `authctl keys
 *   --json` prints them: never key material;
 * - rotate makes a new key sign at once on this instance (the others follow at their next key
 *   check) and answers the new kid and the retired ones; the change is audited with the actor.
 */
import type { KeyAdmin } from '../key-admin.ts';
import { KeyJson, keyJson, KeyRotationJson, keyRotationJson } from '../json/key-json.ts';
import { itemsJson } from '../json/page-json.ts';
import type { AdminRouter } from './admin-router.ts';

export function addKeyRoutes(router: AdminRouter, deps: { keys: KeyAdmin }): void {
  router.add({
    method: 'GET',
    path: '/keys',
    scope: 'admin:keys',
    summary: 'The signing keys with their state and dates (never key material)',
    operationId: 'listKeys',
    responses: { 200: { description: 'The keys, signing key first', body: itemsJson(KeyJson) } },
    async handle() {
      return { status: 200, body: { items: (await deps.keys.list()).map(keyJson) } };
    },
  });

  router.add({
    method: 'POST',
    path: '/keys/rotate',
    scope: 'admin:keys',
    summary: 'A new key signs at once; the previous one stays published until its tokens expire',
    operationId: 'rotateKeys',
    responses: { 200: { description: 'The new key and the retired ones', body: KeyRotationJson } },
    async handle({ actor }) {
      return { status: 200, body: keyRotationJson(await deps.keys.rotate(actor)) };
    },
  });
}
