/**
 * The DPoP proofs the API has accepted, so that none is accepted twice (RFC 9449 §11.1). Rules:
 * - a proof is known by its key's thumbprint and its `jti`; recording one that is already there
 *   answers false (insert … on conflict do nothing, so two instances racing on one proof cannot
 *   both accept it: the database decides, whichever instance asks);
 * - a record is kept until `expires_at`, the end of the proof's iat window, after which the proof
 *   is refused on its `iat` anyway; `purgeExpired` deletes what has passed (server.ts runs it on a timer).
 */
import type { Kysely, QueryResult } from 'kysely';
import { precompile } from '@gatehouse/db';
import type { ApiSchema } from './schema.ts';

export interface DpopProofStore {
  /** Records a proof until `expiresAt` (epoch ms); false when it was recorded already. */
  remember(jkt: string, jti: string, expiresAt: number): Promise<boolean>;
  /** Deletes the records that expired before `now` (epoch ms); resolves with how many. */
  purgeExpired(now: number): Promise<number>;
}

export function createDpopProofStore(db: Kysely<ApiSchema>): DpopProofStore {
  const insert = precompile(db, ['jkt', 'jti', 'expiresAt'], (v) =>
    db
      .insertInto('api_dpop_proofs')
      .values({ jkt: v.jkt, jti: v.jti, expires_at: v.expiresAt })
      .onConflict((oc) => oc.columns(['jkt', 'jti']).doNothing()),
  );
  const purge = precompile(db, ['now'], (v) => db.deleteFrom('api_dpop_proofs').where('expires_at', '<', v.now));
  const affected = (result: QueryResult<unknown>): number => Number(result.numAffectedRows ?? 0);
  return {
    async remember(jkt, jti, expiresAt) {
      return affected(await insert({ jkt, jti, expiresAt })) === 1;
    },
    async purgeExpired(now) {
      return affected(await purge({ now }));
    },
  };
}
