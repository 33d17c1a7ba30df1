/**
 * The JSON shapes of the signing keys and of a rotation: /admin/v1/keys and `authctl keys ...
 * --json` print exactly these. Rules:
 * - a key is its id, algorithm, state and dates, never key material (the public keys are at the
 *   JWKS endpoint);
 * - a rotation names the new kid, the retired kids with the end of their publication (null when
 *   none retired) and the pending kids dropped;
 * - KeyJson is the OpenAPI document's `SigningKey`; KeyRotationJson is POST /keys/rotate's answer
 *   (admin/http/openapi.ts).
 */
import { z } from 'zod';
import type { ManualRotation } from '../../keys/signing-keys.ts';
import type { KeyInfo } from '../key-admin.ts';
import { IsoTime, isoTime } from './json-time.ts';

export const KeyJson = z.object({
  kid: z.string(),
  alg: z.enum(['RS256']),
  state: z.enum(['pending', 'active', 'retired', 'expired']),
  created_at: IsoTime,
  activates_at: IsoTime,
  retired_at: IsoTime.nullable(),
  expires_at: IsoTime.nullable(),
});
export type KeyJson = z.output<typeof KeyJson>;

export const KeyRotationJson = z.object({
  kid: z.string(),
  retired: z.array(z.string()),
  retired_expire_at: IsoTime.nullable(),
  discarded: z.array(z.string()).meta({ description: 'Pending keys dropped (they never signed)' }),
});
export type KeyRotationJson = z.output<typeof KeyRotationJson>;

export function keyJson(key: KeyInfo): KeyJson {
  return {
    kid: key.kid,
    alg: key.alg,
    state: key.state,
    created_at: isoTime(key.createdAt),
    activates_at: isoTime(key.activatesAt),
    retired_at: isoTime(key.retiredAt),
    expires_at: isoTime(key.expiresAt),
  };
}

export function keyRotationJson(result: ManualRotation): KeyRotationJson {
  return {
    kid: result.kid,
    retired: result.retired,
    retired_expire_at: result.retired.length > 0 ? isoTime(result.retiredExpireAt) : null,
    discarded: result.discarded,
  };
}
