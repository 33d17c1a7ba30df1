/**
 * oidc-provider persistence on Kysely. Rules:
 * - every model shares the table `oidc_payloads`, keyed by (model, id);
 * - expiry is absolute (epoch ms) and enforced on read: an expired row is never returned;
 *   purgeExpired() deletes them in bulk;
 * - `consumed` lives in its own column and is returned as epoch seconds, as oidc-provider expects;
 * - revokeByGrantId removes rows of every model that carry the grant;
 * - the Client model is served read-only from the ClientStore (registration happens through authctl);
 * - destroying a Grant (code reuse, refresh-token replay, logout, revocation) calls onGrantRevoked
 *   before it returns, so the JWT access tokens of that grant stop being active everywhere;
 * - an authorization code's scope is stored in the order the client asked for (orderCodeScope);
 * - an empty SSO session (no account, no logout state, no client authorizations) is not stored:
 *   oidc-provider saves one at the end of any request that presents a validly signed cookie of a
 *   session that no longer exists (expired, logged out), refused requests included, so storing
 *   it would let one stale cookie add a row per request. Not finding it later means the same;
 * - every query is compiled once, when the adapter is created (`precompile` of @gatehouse/db):
 *   the token endpoint runs several per request, and building them cost as much as running them.
 */
import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { precompile } from '@gatehouse/db';
import { toOidcClientMetadata, type ClientStore } from '../clients/client-store.ts';
import type { AuthSchema, OidcPayloadsTable } from '../storage/schema.ts';

export interface OidcAdapterDeps {
  db: Kysely<AuthSchema>;
  clients: ClientStore;
  clock: () => number;
  onGrantRevoked?: (grantId: string) => Promise<void>;
  /** Reorders an authorization code's scope before it is stored (scope-order.ts). */
  orderCodeScope?: (scope: string) => string;
}

export interface OidcAdapter {
  adapterFactory: (name: string) => Adapter;
  /** Deletes expired rows of every model; returns how many. */
  purgeExpired(): Promise<number>;
}

/** A session that carries nothing: no signed-in account, no pending logout, no client. */
function isEmptySession(payload: AdapterPayload): boolean {
  const session = payload as AdapterPayload & { loginTs?: unknown; state?: unknown; authorizations?: Record<string, unknown> };
  return !session.accountId && session.loginTs === undefined && session.state === undefined && Object.keys(session.authorizations ?? {}).length === 0;
}

export function createOidcAdapter(deps: OidcAdapterDeps): OidcAdapter {
  const { db, clients, clock } = deps;

  const clientAdapter: Adapter = {
    async upsert() {},
    async find(id) {
      const client = await clients.find(id);
      return client && (toOidcClientMetadata(client) as AdapterPayload);
    },
    async findByUserCode() {
      return undefined;
    },
    async findByUid() {
      return undefined;
    },
    async consume() {},
    async destroy() {},
    async revokeByGrantId() {},
  };

  function toPayload(row: Pick<OidcPayloadsTable, 'payload' | 'consumed_at' | 'expires_at'> | undefined): AdapterPayload | undefined {
    if (!row) return undefined;
    if (row.expires_at !== null && Number(row.expires_at) <= clock()) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    if (row.consumed_at !== null) payload.consumed = Math.floor(Number(row.consumed_at) / 1000);
    return payload;
  }

  type Row = Pick<OidcPayloadsTable, 'payload' | 'consumed_at' | 'expires_at'>;
  const selectBy = (column: 'id' | 'user_code' | 'uid') =>
    precompile(db, ['model', 'key'], (v) => db.selectFrom('oidc_payloads').select(['payload', 'consumed_at', 'expires_at']).where('model', '=', v.model).where(column, '=', v.key));
  const queries = {
    find: selectBy('id'),
    findByUserCode: selectBy('user_code'),
    findByUid: selectBy('uid'),
    upsert: precompile(db, ['model', 'id', 'payload', 'grant_id', 'user_code', 'uid', 'expires_at', 'consumed_at'], (v) => {
      const row = { payload: v.payload, grant_id: v.grant_id, user_code: v.user_code, uid: v.uid, expires_at: v.expires_at, consumed_at: v.consumed_at };
      return db
        .insertInto('oidc_payloads')
        .values({ model: v.model, id: v.id, ...row })
        .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(row));
    }),
    consume: precompile(db, ['model', 'id', 'now'], (v) => db.updateTable('oidc_payloads').set({ consumed_at: v.now }).where('model', '=', v.model).where('id', '=', v.id)),
    destroy: precompile(db, ['model', 'id'], (v) => db.deleteFrom('oidc_payloads').where('model', '=', v.model).where('id', '=', v.id)),
    revokeByGrantId: precompile(db, ['grantId'], (v) => db.deleteFrom('oidc_payloads').where('grant_id', '=', v.grantId)),
  };
  const first = async (query: Promise<{ rows: Row[] }>) => toPayload((await query).rows[0]);

  function modelAdapter(model: string): Adapter {
    return {
      async upsert(id, payload, expiresIn) {
        if (model === 'Session' && isEmptySession(payload)) return;
        const { consumed, ...rest } = payload;
        if (model === 'AuthorizationCode' && typeof rest.scope === 'string' && deps.orderCodeScope) rest.scope = deps.orderCodeScope(rest.scope);
        await queries.upsert({
          model,
          id,
          payload: JSON.stringify(rest),
          grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
          user_code: typeof payload.userCode === 'string' ? payload.userCode : null,
          uid: typeof payload.uid === 'string' ? payload.uid : null,
          expires_at: typeof expiresIn === 'number' ? clock() + expiresIn * 1000 : null,
          // A re-saved instance that was already consumed stays consumed.
          consumed_at: typeof consumed === 'number' ? consumed * 1000 : null,
        });
      },

      async find(id) {
        return first(queries.find({ model, key: id }));
      },

      async findByUserCode(userCode) {
        return first(queries.findByUserCode({ model, key: userCode }));
      },

      async findByUid(uid) {
        return first(queries.findByUid({ model, key: uid }));
      },

      async consume(id) {
        await queries.consume({ model, id, now: clock() });
      },

      async destroy(id) {
        if (model === 'Grant') await deps.onGrantRevoked?.(id);
        await queries.destroy({ model, id });
      },

      async revokeByGrantId(grantId) {
        await queries.revokeByGrantId({ grantId });
      },
    };
  }

  return {
    adapterFactory: (name) => (name === 'Client' ? clientAdapter : modelAdapter(name)),
    async purgeExpired() {
      const result = await db.deleteFrom('oidc_payloads').where('expires_at', '<=', clock()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
