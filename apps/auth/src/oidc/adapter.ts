/**
 * oidc-provider persistence: each model's adapter delegates to the payload store (payload-store.ts)
 * and carries the refresh-token rotation. Rules:
 * - expiry is absolute (epoch ms) and enforced on read with the adapter's clock: an expired row is
 *   never returned; purgeExpired() deletes them in bulk;
 * - `consumed` lives in its own column and is returned as epoch seconds, as oidc-provider expects;
 * - revokeByGrantId removes rows of every token model that carry the grant; an Interaction
 *   carrying it stays: a sign-in in progress is no credential of the grant, and oidc-provider's
 *   switch to another account logs the previous one out (revoking its grants) in the middle of the
 *   interaction it then resumes (prompt=select_account, prompt=login);
 * - the Client model is served read-only from the ClientStore (registration happens through authctl);
 * - `insertOnce` (replay-detection.ts) stores a row only when none of that model and id is stored
 *   unexpired, in one statement: of two servers storing the same id at once, one is told no;
 * - destroying a Grant (code reuse, refresh-token replay, logout, revocation) calls onGrantRevoked
 *   before it returns, so the JWT access tokens of that grant stop being active everywhere;
 * - an authorization code's scope is stored in the order the client asked for (orderCodeScope);
 * - an empty SSO session (no account, no logout state, no client authorizations) is not stored:
 *   oidc-provider saves one at the end of any request that presents a validly signed cookie of a
 *   session that no longer exists (expired, logged out), refused requests included, so storing
 *   it would let one stale cookie add a row per request. Not finding it later means the same;
 * - inside a request, a RefreshToken's consumption (rotation) is held (pending-rotation.ts) and
 *   committed together with the next RefreshToken stored in that request (the rotated one): one
 *   statement on PostgreSQL; on SQLite one transaction, shared with the rotations of the other
 *   requests of the same event-loop turn (group-commit.ts: one WAL sync for all, each response
 *   still follows its own commit and its sync, which on a SQLite file runs while the request signs
 *   its tokens). Any other adapter call of the request, or the end of the request
 *   (flushPendingWrites, before the response), commits a consumption left alone first. Either both
 *   are stored or neither (a failure between them would lose the client its refresh token;
 *   bench/README.md, "Token path").
 */
import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { DeferredSync, Engine, QueryRunner } from '@gatehouse/db';
import { toOidcClientMetadata, type ClientStore } from '../clients/client-store.ts';
import type { AuthSchema } from '../storage/schema.ts';
import type { Consumption, PayloadRow, PayloadStore, PayloadValues } from './payload-store.ts';
import { createPendingRotation } from './pending-rotation.ts';
import { createGroupCommit } from './group-commit.ts';

export interface OidcAdapterDeps {
  /** The rows of every model (payload-store.ts), wrapped or not by the token path's reads (token-path-reads.ts). */
  payloads: PayloadStore;
  clients: ClientStore;
  /** The database, for the transaction of a SQLite rotation. */
  db: Kysely<AuthSchema>;
  clock: () => number;
  /** The request being served (an object unique to it), or undefined: a rotation is held only inside one. */
  currentRequest?: () => object | undefined;
  onGrantRevoked?: (grantId: string) => Promise<void>;
  /** Reorders an authorization code's scope before it is stored (scope-order.ts). */
  orderCodeScope?: (scope: string) => string;
  /** The engine, for the rotation's write (one statement on PostgreSQL, a group transaction on SQLite). */
  engine?: Engine;
  /**
   * SQLite on a file: the rotations' group transaction commits without waiting for the disk on the
   * event loop, and its callers are answered once the log is synced (SqliteDatabase.deferredSync).
   */
  deferredSync?: DeferredSync;
}

/** An adapter of one model that can also store a row only if none is stored (replay-detection.ts). */
export interface InsertOnceAdapter extends Adapter {
  /** Stores the row unless one of this id is stored and unexpired; true when it stored it. */
  insertOnce(id: string, payload: AdapterPayload, expiresIn: number): Promise<boolean>;
}

export interface OidcAdapter {
  adapterFactory: (name: string) => Adapter;
  /** Deletes expired rows of every model; returns how many. */
  purgeExpired(): Promise<number>;
  /**
   * Commits what `request` left pending (a RefreshToken consumed but no new one stored after it),
   * and waits until its rotation is on disk (SQLite file); run by the server after oidc-provider
   * answered and before the response is sent. Throws when either failed: the request then fails.
   */
  flushPendingWrites(request: object): Promise<void>;
}

/** A session that carries nothing: no signed-in account, no pending logout, no client. */
function isEmptySession(payload: AdapterPayload): boolean {
  const session = payload as AdapterPayload & { loginTs?: unknown; state?: unknown; authorizations?: Record<string, unknown> };
  return !session.accountId && session.loginTs === undefined && session.state === undefined && Object.keys(session.authorizations ?? {}).length === 0;
}

export function createOidcAdapter(deps: OidcAdapterDeps): OidcAdapter {
  const { payloads, clients, clock } = deps;
  const engine = deps.engine ?? 'sqlite';
  const pending = createPendingRotation(deps.currentRequest ?? (() => undefined));

  const clientAdapter: Adapter = {
    async upsert() {},
    async find(id) {
      await flushPending();
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

  function toPayload(row: PayloadRow | undefined): AdapterPayload | undefined {
    if (!row) return undefined;
    if (row.expires_at !== null && Number(row.expires_at) <= clock()) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    if (row.consumed_at !== null) payload.consumed = Math.floor(Number(row.consumed_at) / 1000);
    return payload;
  }

  // SQLite: the rotations of the requests of one event-loop turn share one transaction
  // (group-commit.ts); on a file its wait for the disk runs off the event loop (deferredSync).
  type Rotation = { consumed: Consumption; stored: PayloadValues };
  const rotate = async (trx: QueryRunner, items: readonly Rotation[]) => {
    for (const { consumed, stored } of items) {
      await payloads.consume(consumed, trx);
      await payloads.upsert(stored, trx);
    }
  };
  const deferred = deps.deferredSync;
  const inTransaction = deferred ? deferred.transaction : <T>(work: (trx: QueryRunner) => Promise<T>) => deps.db.transaction().execute(work);
  const rotations = createGroupCommit<Rotation>((items) => inTransaction((trx) => rotate(trx, items)), deferred?.sync);

  /** Commits the request's held consumption, if any, before another adapter call. */
  async function flushPending(): Promise<void> {
    const consumption = pending.takeConsumption();
    if (consumption) await payloads.consume(consumption);
  }

  /** Stores `values`; a consumption held by the request is committed with it (a rotation) or before it. */
  async function store(values: PayloadValues): Promise<void> {
    const consumption = pending.takeConsumption();
    if (!consumption || values.model !== 'RefreshToken') {
      if (consumption) await payloads.consume(consumption);
      await payloads.upsert(values);
    } else if (engine === 'postgres') {
      await payloads.consumeAndUpsert(consumption, values);
    } else {
      // On a SQLite file the wait for the disk runs while the request goes on (its signatures);
      // the response waits for it (flushPendingWrites).
      const { committed, durable } = rotations.commit({ consumed: consumption, stored: values });
      await committed;
      pending.holdDurable(durable);
    }
  }

  function modelAdapter(model: string): InsertOnceAdapter {
    return {
      async insertOnce(id, payload, expiresIn) {
        await flushPending();
        const now = clock();
        return payloads.insertOnce({ model, id, payload: JSON.stringify(payload), expires_at: now + expiresIn * 1000 }, now);
      },

      async upsert(id, payload, expiresIn) {
        if (model === 'Session' && isEmptySession(payload)) return flushPending();
        const { consumed, ...rest } = payload;
        if (model === 'AuthorizationCode' && typeof rest.scope === 'string' && deps.orderCodeScope) rest.scope = deps.orderCodeScope(rest.scope);
        await store({
          model,
          id,
          payload: JSON.stringify(rest),
          grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
          user_code: typeof payload.userCode === 'string' ? payload.userCode : null,
          uid: typeof payload.uid === 'string' ? payload.uid : null,
          account_id: typeof payload.accountId === 'string' ? payload.accountId : null,
          session_uid: typeof payload.sessionUid === 'string' ? payload.sessionUid : null,
          expires_at: typeof expiresIn === 'number' ? clock() + expiresIn * 1000 : null,
          // A re-saved instance that was already consumed stays consumed.
          consumed_at: typeof consumed === 'number' ? consumed * 1000 : null,
        });
      },

      async find(id) {
        await flushPending();
        return toPayload(await payloads.find(model, id));
      },

      async findByUserCode(userCode) {
        await flushPending();
        return toPayload(await payloads.findByUserCode(model, userCode));
      },

      async findByUid(uid) {
        await flushPending();
        return toPayload(await payloads.findByUid(model, uid));
      },

      async consume(id) {
        await flushPending();
        const consumption: Consumption = { model, id, now: clock() };
        // A rotation: committed with the new refresh token that follows (upsert), or before the response.
        if (model === 'RefreshToken' && pending.active()) pending.holdConsumption(consumption);
        else await payloads.consume(consumption);
      },

      async destroy(id) {
        await flushPending();
        if (model === 'Grant') await deps.onGrantRevoked?.(id);
        await payloads.destroy(model, id);
      },

      async revokeByGrantId(grantId) {
        await flushPending();
        await payloads.revokeByGrantId(grantId);
      },
    };
  }

  return {
    adapterFactory: (name) => (name === 'Client' ? clientAdapter : modelAdapter(name)),
    async flushPendingWrites(request) {
      const consumption = pending.takeConsumption(request);
      if (consumption) await payloads.consume(consumption);
      // A rotation committed in this request: answered only once on disk.
      await pending.takeDurable(request);
    },
    purgeExpired: () => payloads.purgeExpired(clock()),
  };
}
