/**
 * The rows of oidc-provider's models in `oidc_payloads`, as stored (adapter.ts turns them into
 * models). Rules:
 * - every model shares the table, keyed by (model, id); grant_id, user_code and uid are lookup keys,
 *   account_id and session_uid the keys a refresh joins its account and session on;
 * - reads return the row as stored, expired or not: the adapter applies expiry with its clock;
 * - revokeByGrantId removes the rows of every model but Interaction that carry the grant, in one
 *   statement;
 * - insertOnce stores a row only when none of that model and id is stored unexpired, in one
 *   statement (an expired one not purged yet is taken over);
 * - consumeAndUpsert is a rotation's two writes in one statement (PostgreSQL's data-modifying WITH);
 * - every query is compiled once, when the store is created (`precompile` of @gatehouse/db): the
 *   token endpoint runs several per request, and building one costs as much as running it
 *   (bench/README.md, "Token path").
 */
import { sql, type Kysely } from 'kysely';
import { precompile } from '@gatehouse/db';
import { OIDC_PAYLOAD_COLUMNS, type AuthSchema, type OidcPayloadsTable } from '../storage/schema.ts';

/** The columns of a stored model that make the model. */
export type PayloadRow = Pick<OidcPayloadsTable, (typeof OIDC_PAYLOAD_COLUMNS)[number]>;

/** A whole row to store. */
export type PayloadValues = OidcPayloadsTable;

/** A consumption: the row `id` of `model` consumed at `now` (epoch ms). */
export interface Consumption {
  model: string;
  id: string;
  now: number;
}

/** A transaction (or the database) a write runs on. */
type On = Pick<Kysely<unknown>, 'executeQuery'>;

export interface PayloadStore {
  find(model: string, id: string): Promise<PayloadRow | undefined>;
  findByUid(model: string, uid: string): Promise<PayloadRow | undefined>;
  findByUserCode(model: string, userCode: string): Promise<PayloadRow | undefined>;
  /** Stores the row (replacing the one of the same model and id), on `on` when given. */
  upsert(values: PayloadValues, on?: On): Promise<void>;
  /** Stores the row unless one of this model and id is stored unexpired at `now`; true when it stored it. */
  insertOnce(values: Pick<PayloadValues, 'model' | 'id' | 'payload' | 'expires_at'>, now: number): Promise<boolean>;
  consume(consumption: Consumption, on?: On): Promise<void>;
  /** PostgreSQL: the consumption and the row stored after it, in one statement. */
  consumeAndUpsert(consumption: Consumption, values: PayloadValues): Promise<void>;
  destroy(model: string, id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
  /** Deletes every row expired at `now`; returns how many. */
  purgeExpired(now: number): Promise<number>;
}

export function createPayloadStore(db: Kysely<AuthSchema>): PayloadStore {
  const selectBy = (column: 'id' | 'user_code' | 'uid') =>
    precompile(db, ['model', 'key'], (v) => db.selectFrom('oidc_payloads').select(OIDC_PAYLOAD_COLUMNS).where('model', '=', v.model).where(column, '=', v.key));
  const stored = (v: Record<keyof PayloadValues, never>) => ({
    payload: v.payload,
    grant_id: v.grant_id,
    user_code: v.user_code,
    uid: v.uid,
    account_id: v.account_id,
    session_uid: v.session_uid,
    expires_at: v.expires_at,
    consumed_at: v.consumed_at,
  });
  const queries = {
    find: selectBy('id'),
    findByUserCode: selectBy('user_code'),
    findByUid: selectBy('uid'),
    upsert: precompile(db, ['model', 'id', 'payload', 'grant_id', 'user_code', 'uid', 'account_id', 'session_uid', 'expires_at', 'consumed_at'], (v) =>
      db
        .insertInto('oidc_payloads')
        .values({ model: v.model, id: v.id, ...stored(v) })
        .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(stored(v))),
    ),
    consume: precompile(db, ['model', 'id', 'now'], (v) => db.updateTable('oidc_payloads').set({ consumed_at: v.now }).where('model', '=', v.model).where('id', '=', v.id)),
    consumeAndUpsert: precompile(db, ['consumed_model', 'consumed_id', 'now', 'model', 'id', 'payload', 'grant_id', 'user_code', 'uid', 'account_id', 'session_uid', 'expires_at', 'consumed_at'], (v) =>
      db
        .with('consumed', (qc) => qc.updateTable('oidc_payloads').set({ consumed_at: v.now }).where('model', '=', v.consumed_model).where('id', '=', v.consumed_id))
        .insertInto('oidc_payloads')
        .values({ model: v.model, id: v.id, ...stored(v) })
        .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(stored(v))),
    ),
    insertOnce: precompile(db, ['model', 'id', 'payload', 'expires_at', 'now'], (v) =>
      db
        .insertInto('oidc_payloads')
        .values({ model: v.model, id: v.id, payload: v.payload, expires_at: v.expires_at })
        .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet({ payload: v.payload, expires_at: v.expires_at, consumed_at: sql<null>`null` }).where('oidc_payloads.expires_at', '<=', v.now)),
    ),
    destroy: precompile(db, ['model', 'id'], (v) => db.deleteFrom('oidc_payloads').where('model', '=', v.model).where('id', '=', v.id)),
    revokeByGrantId: precompile(db, ['grantId'], (v) => db.deleteFrom('oidc_payloads').where('grant_id', '=', v.grantId).where('model', '!=', sql.lit('Interaction'))),
  };
  return {
    find: async (model, id) => (await queries.find({ model, key: id })).rows[0],
    findByUid: async (model, uid) => (await queries.findByUid({ model, key: uid })).rows[0],
    findByUserCode: async (model, userCode) => (await queries.findByUserCode({ model, key: userCode })).rows[0],
    async upsert(values, on) {
      await queries.upsert(values, on);
    },
    async insertOnce(values, now) {
      const result = await queries.insertOnce({ ...values, now });
      return Number(result.numAffectedRows ?? 0) === 1;
    },
    async consume(consumption, on) {
      await queries.consume(consumption, on);
    },
    async consumeAndUpsert(consumption, values) {
      await queries.consumeAndUpsert({ consumed_model: consumption.model, consumed_id: consumption.id, now: consumption.now, ...values });
    },
    async destroy(model, id) {
      await queries.destroy({ model, id });
    },
    async revokeByGrantId(grantId) {
      await queries.revokeByGrantId({ grantId });
    },
    async purgeExpired(now) {
      const result = await db.deleteFrom('oidc_payloads').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
