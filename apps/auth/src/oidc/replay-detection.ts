/**
 * One use of a JWT id, across every server sharing the database. Rules:
 * - oidc-provider asks `ReplayDetection.unique(iss, jti, exp)` before it accepts a client
 *   assertion (private_key_jwt, client_secret_jwt) or a DPoP proof at its endpoints; the answer is
 *   true for the first use of (iss, jti) and false for every later one until `exp` has passed
 *   (then oidc-provider's own `exp` check refuses the JWT anyway);
 * - the check and the record are one statement (the adapter's insertOnce): oidc-provider's own
 *   `unique` finds and then saves, so two servers given the same assertion at once could both
 *   accept it; here one of them is told no;
 * - the row is stored under the id oidc-provider derives (SHA-256 of iss and jti), in the
 *   ReplayDetection model of the adapter, so it expires and is purged like the other rows.
 * This replaces `unique` on the provider's own ReplayDetection class (each Provider has its own);
 * with an adapter that cannot insert once, oidc-provider's own check stays.
 */
import { hash } from 'node:crypto';
import type { Provider } from 'oidc-provider';
import type { InsertOnceAdapter } from './adapter.ts';

type ReplayModel = { adapter: Partial<InsertOnceAdapter>; unique(iss: string, jti: string, exp: number): Promise<boolean> };

export function detectReplaysOnce(provider: Provider, clock: () => number): void {
  const model = provider.ReplayDetection as unknown as ReplayModel;
  const adapter = model.adapter;
  if (typeof adapter.insertOnce !== 'function') return;
  const insertOnce = adapter.insertOnce.bind(adapter);
  model.unique = async (iss, jti, exp) => {
    const id = hash('sha256', `${iss}${jti}`, 'base64url');
    const expiresIn = Math.max(1, exp - Math.floor(clock() / 1000));
    return insertOnce(id, { iss, jti: id, kind: 'ReplayDetection', exp }, expiresIn);
  };
}
