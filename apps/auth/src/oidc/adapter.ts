/**
 * oidc-provider persistence on Kysely. Rules:
 * - every model shares the table `oidc_payloads`, keyed by (model, id);
 * - expiry is absolute (epoch ms) and enforced on read: an expired row is never returned;
 *   purgeExpired() deletes them in bulk;
 * - `consumed` lives in its own column and is returned as epoch seconds, as oidc-provider expects;
 * - revokeByGrantId removes rows of every token model that carry the grant, in one statement; an
 *   Interaction carrying it stays: a sign-in in progress is no credential of the grant, and
 *   oidc-provider's switch to another account logs the previous one out (revoking its grants) in
 *   the middle of the interaction it then resumes (prompt=select_account, prompt=login);
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
 * - every query is compiled once, when the adapter is created (`precompile` of @gatehouse/db):
 *   the token endpoint runs several per request, and building one costs as much as running it;
 * - inside an oidc-provider request (`readAhead`, read-ahead.ts), finding a RefreshToken reads in
 *   the same statement its Grant, its Session (by the token's sessionUid) and its account, and the
 *   client lookup of a refresh request (`refreshTokenOfRequest`) reads the client, the scope
 *   policies and the presented token with those three in one statement; the lookups oidc-provider
 *   and the stores make next in that request are answered from that read, once each, and every
 *   write through the adapter drops what is left of it (one round trip, not one per lookup;
 *   bench/README.md, "Token path");
 * - inside a request, a RefreshToken's consumption (rotation) is committed together with the next
 *   RefreshToken stored in that request (the rotated one): one statement on PostgreSQL; on SQLite
 *   one transaction, shared with the rotations of the other requests of the same event-loop turn
 *   (group-commit.ts: one WAL sync for all, each response still follows its own commit and its
 *   sync, which on a SQLite file runs while the request signs its tokens). Any other
 *   adapter call of the request, or the end of the request (flushPendingWrites, before the
 *   response), commits a consumption left alone first. Either both are stored or neither (a failure
 *   between them would lose the client its refresh token).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { precompile, precompileSql, type DeferredSync, type Engine } from '@gatehouse/db';
import { toOidcClientMetadata, type ClientStore } from '../clients/client-store.ts';
import { ACCOUNT_COLUMNS } from '../accounts/account-store.ts';
import { POLICY_ROWS_COLUMN, policyRowsSql } from '../policy/scope-policy-store.ts';
import type { AuthSchema, OidcPayloadsTable } from '../storage/schema.ts';
import { NO_READ_AHEAD, READ_AHEAD_KEYS, type ReadAhead } from './read-ahead.ts';
import { createGroupCommit } from './group-commit.ts';

export interface OidcAdapterDeps {
  db: Kysely<AuthSchema>;
  clients: ClientStore;
  clock: () => number;
  onGrantRevoked?: (grantId: string) => Promise<void>;
  /** Reorders an authorization code's scope before it is stored (scope-order.ts). */
  orderCodeScope?: (scope: string) => string;
  /** The refresh token a refresh request presents (token endpoint, grant_type refresh_token), if this is one. */
  refreshTokenOfRequest?: () => string | undefined;
  /** Rows read ahead for the request being served (read-ahead.ts); none by default. */
  readAhead?: ReadAhead;
  /** The engine, for the SQL that differs (JSON in the read ahead, the rotation's write). */
  engine?: Engine;
  /**
   * SQLite on a file: the rotations' group transaction commits without waiting for the disk on the
   * event loop, and its callers are answered once the log is synced (Database.deferredSync).
   */
  deferredSync?: DeferredSync<AuthSchema>;
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

/** A RefreshToken consumed in this request, not committed yet. */
interface PendingConsume {
  model: string;
  id: string;
  now: number;
}

const PENDING_CONSUME = 'oidc:consume';
/** A rotation committed in this request whose log is not synced yet: the response waits for it. */
const PENDING_DURABLE = 'oidc:durable';

/** The text of a JSON member of `payload` (a column holding a JSON object), per engine. */
const JSON_TEXT: Record<Engine, (column: string, member: string) => string> = {
  sqlite: (column, member) => `json_extract(${column}, '$.${member}')`,
  postgres: (column, member) => `(${column}::json ->> '${member}')`,
};

/** The n-th parameter of a raw statement, per engine (numbered on both: a value may come first in the text). */
const PARAM: Record<Engine, (n: number) => string> = { sqlite: (n) => `?${n}`, postgres: (n) => `$${n}` };

/**
 * A RefreshToken (its id: parameter `n`) with its Grant, its Session (by the token's sessionUid)
 * and its account, in one statement: one row, each of the three left-joined (absent: nulls), the
 * token's own columns prefixed `r_`.
 */
function refreshTokenWithRelatedSql(engine: Engine, n: number): string {
  const json = JSON_TEXT[engine];
  const accountColumns = ACCOUNT_COLUMNS.map((c) => `a.${c} as a_${c}`).join(', ');
  return (
    'select r.payload as r_payload, r.consumed_at as r_consumed_at, r.expires_at as r_expires_at, r.grant_id as r_grant_id, ' +
    'g.payload as g_payload, g.consumed_at as g_consumed_at, g.expires_at as g_expires_at, ' +
    's.payload as s_payload, s.consumed_at as s_consumed_at, s.expires_at as s_expires_at, ' +
    `${accountColumns} ` +
    'from oidc_payloads r ' +
    "left join oidc_payloads g on g.model = 'Grant' and g.id = r.grant_id " +
    `left join oidc_payloads s on s.model = 'Session' and s.uid = ${json('r.payload', 'sessionUid')} ` +
    `left join accounts a on a.id = ${json('r.payload', 'accountId')} ` +
    `where r.model = 'RefreshToken' and r.id = ${PARAM[engine](n)}`
  );
}

/**
 * A refresh request's client (parameter 1) with the scope policies (clients/client-store.ts) and
 * the presented refresh token (parameter 2) with its grant, session and account: one statement.
 * No row when the client does not exist; the token's columns are null when it does not.
 */
function clientWithRefreshTokenSql(engine: Engine): string {
  return `select c.*, (${policyRowsSql(engine)}) as ${POLICY_ROWS_COLUMN}, x.* from clients c left join (${refreshTokenWithRelatedSql(engine, 2)}) x on 1 = 1 where c.client_id = ${PARAM[engine](1)}`;
}

type RelatedRow = Record<string, unknown>;

/** A session that carries nothing: no signed-in account, no pending logout, no client. */
function isEmptySession(payload: AdapterPayload): boolean {
  const session = payload as AdapterPayload & { loginTs?: unknown; state?: unknown; authorizations?: Record<string, unknown> };
  return !session.accountId && session.loginTs === undefined && session.state === undefined && Object.keys(session.authorizations ?? {}).length === 0;
}

export function createOidcAdapter(deps: OidcAdapterDeps): OidcAdapter {
  const { db, clients, clock } = deps;
  const readAhead = deps.readAhead ?? NO_READ_AHEAD;
  const engine = deps.engine ?? 'sqlite';

  const clientAdapter: Adapter = {
    async upsert() {},
    async find(id) {
      const refreshToken = readAhead.active() ? deps.refreshTokenOfRequest?.() : undefined;
      if (refreshToken !== undefined) await readClientWithRefreshToken(id, refreshToken);
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
    // PostgreSQL: a rotation's two writes in one statement (a data-modifying WITH).
    consumeAndUpsert: precompile(db, ['consumed_model', 'consumed_id', 'now', 'model', 'id', 'payload', 'grant_id', 'user_code', 'uid', 'expires_at', 'consumed_at'], (v) => {
      const row = { payload: v.payload, grant_id: v.grant_id, user_code: v.user_code, uid: v.uid, expires_at: v.expires_at, consumed_at: v.consumed_at };
      return db
        .with('consumed', (qc) => qc.updateTable('oidc_payloads').set({ consumed_at: v.now }).where('model', '=', v.consumed_model).where('id', '=', v.consumed_id))
        .insertInto('oidc_payloads')
        .values({ model: v.model, id: v.id, ...row })
        .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(row));
    }),
    insertOnce: precompile(db, ['model', 'id', 'payload', 'expires_at', 'now'], (v) =>
      db
        .insertInto('oidc_payloads')
        .values({ model: v.model, id: v.id, payload: v.payload, expires_at: v.expires_at })
        // An expired row of the same id (not purged yet) is taken over; an unexpired one stays.
        .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet({ payload: v.payload, expires_at: v.expires_at, consumed_at: sql<null>`null` }).where('oidc_payloads.expires_at', '<=', v.now)),
    ),
    destroy: precompile(db, ['model', 'id'], (v) => db.deleteFrom('oidc_payloads').where('model', '=', v.model).where('id', '=', v.id)),
    revokeByGrantId: precompile(db, ['grantId'], (v) => db.deleteFrom('oidc_payloads').where('grant_id', '=', v.grantId).where('model', '!=', sql.lit('Interaction'))),
  };
  const first = async (query: Promise<{ rows: Row[] }>) => toPayload((await query).rows[0]);

  const readRefreshTokenWithRelated = precompileSql<RelatedRow>(db, refreshTokenWithRelatedSql(engine, 1));
  const readClientWithRefreshTokenRow = precompileSql<RelatedRow>(db, clientWithRefreshTokenSql(engine));

  /** Keeps the Grant, Session and account of a RefreshToken row read with them for this request's next lookups. */
  function keepRelated(row: RelatedRow): Row | undefined {
    const part = (prefix: string): Row | undefined =>
      row[`${prefix}payload`] === null || row[`${prefix}payload`] === undefined
        ? undefined
        : { payload: row[`${prefix}payload`] as string, consumed_at: row[`${prefix}consumed_at`] as number | null, expires_at: row[`${prefix}expires_at`] as number | null };
    const token = part('r_');
    if (!token) return undefined;
    const payload = JSON.parse(token.payload) as { sessionUid?: unknown; accountId?: unknown };
    if (typeof row.r_grant_id === 'string') readAhead.put(READ_AHEAD_KEYS.oidc('Grant', 'id', row.r_grant_id), part('g_'));
    if (typeof payload.sessionUid === 'string') readAhead.put(READ_AHEAD_KEYS.oidc('Session', 'uid', payload.sessionUid), part('s_'));
    if (typeof payload.accountId === 'string') {
      const account = row.a_id === null || row.a_id === undefined ? undefined : Object.fromEntries(ACCOUNT_COLUMNS.map((c) => [c, row[`a_${c}`]]));
      readAhead.put(READ_AHEAD_KEYS.account(payload.accountId), account);
    }
    return token;
  }

  /** The RefreshToken row; its Grant, Session and account kept for this request's next lookups. */
  async function findRefreshTokenWithRelated(id: string): Promise<Row | undefined> {
    const row = (await readRefreshTokenWithRelated([id])).rows[0];
    return row && keepRelated(row);
  }

  /**
   * A refresh request's client: read with the presented refresh token (and its grant, session and
   * account); the client row is kept for clients.find(), the token for the adapter's next find().
   */
  async function readClientWithRefreshToken(clientId: string, refreshToken: string): Promise<void> {
    await flushPending();
    const row = (await readClientWithRefreshTokenRow([clientId, refreshToken])).rows[0];
    readAhead.put(READ_AHEAD_KEYS.client(clientId), row);
    if (row) readAhead.put(READ_AHEAD_KEYS.oidc('RefreshToken', 'id', refreshToken), keepRelated(row));
  }

  /** A row read ahead in this request for this lookup: `{ value }` (value undefined: not found), or undefined. */
  const aheadOf = (model: string, by: 'id' | 'uid', key: string) => readAhead.take(READ_AHEAD_KEYS.oidc(model, by, key)) as { value: Row | undefined } | undefined;

  // SQLite: the rotations of the requests of one event-loop turn share one transaction
  // (group-commit.ts); on a file its wait for the disk runs off the event loop (deferredSync).
  type Rotation = { consumed: PendingConsume; stored: Parameters<typeof queries.upsert>[0] };
  const rotate = async (trx: Transaction<AuthSchema>, items: readonly Rotation[]) => {
    for (const { consumed, stored } of items) {
      await queries.consume({ model: consumed.model, id: consumed.id, now: consumed.now }, trx);
      await queries.upsert(stored, trx);
    }
  };
  const deferred = deps.deferredSync;
  const inTransaction = deferred ? deferred.transaction : <T>(work: (trx: Transaction<AuthSchema>) => Promise<T>) => db.transaction().execute(work);
  const rotations = createGroupCommit<Rotation>((items) => inTransaction((trx) => rotate(trx, items)), deferred?.sync);

  async function commitConsume(pending: PendingConsume): Promise<void> {
    await queries.consume({ model: pending.model, id: pending.id, now: pending.now });
  }

  /** The pending work under `key` of the request being served (or of `request`), cleared. */
  function takePending<V>(key: string, request?: object): V | undefined {
    const value = readAhead.pending(key, request) as V | undefined;
    if (value !== undefined) readAhead.setPending(key, undefined, request);
    return value;
  }

  /** Commits the request's pending consumption, if any, before another adapter call. */
  async function flushPending(): Promise<void> {
    const pending = takePending<PendingConsume>(PENDING_CONSUME);
    if (pending) await commitConsume(pending);
  }

  /** Before a write: rows read ahead may no longer be what the database holds. */
  const beforeWrite = async () => {
    readAhead.forget(READ_AHEAD_KEYS.oidcPrefix);
    await flushPending();
  };

  function modelAdapter(model: string): InsertOnceAdapter {
    return {
      async insertOnce(id, payload, expiresIn) {
        await beforeWrite();
        const now = clock();
        const result = await queries.insertOnce({ model, id, payload: JSON.stringify(payload), expires_at: now + expiresIn * 1000, now });
        return Number(result.numAffectedRows ?? 0) === 1;
      },

      async upsert(id, payload, expiresIn) {
        readAhead.forget(READ_AHEAD_KEYS.oidcPrefix);
        const pending = takePending<PendingConsume>(PENDING_CONSUME);
        if (model === 'Session' && isEmptySession(payload)) {
          if (pending) await commitConsume(pending);
          return;
        }
        const { consumed, ...rest } = payload;
        if (model === 'AuthorizationCode' && typeof rest.scope === 'string' && deps.orderCodeScope) rest.scope = deps.orderCodeScope(rest.scope);
        const values = {
          model,
          id,
          payload: JSON.stringify(rest),
          grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
          user_code: typeof payload.userCode === 'string' ? payload.userCode : null,
          uid: typeof payload.uid === 'string' ? payload.uid : null,
          expires_at: typeof expiresIn === 'number' ? clock() + expiresIn * 1000 : null,
          // A re-saved instance that was already consumed stays consumed.
          consumed_at: typeof consumed === 'number' ? consumed * 1000 : null,
        };
        if (!pending || model !== 'RefreshToken') {
          if (pending) await commitConsume(pending);
          await queries.upsert(values);
        } else if (engine === 'postgres') {
          await queries.consumeAndUpsert({ consumed_model: pending.model, consumed_id: pending.id, now: pending.now, ...values });
        } else {
          // On a SQLite file the wait for the disk runs while the request goes on (its signatures);
          // the response waits for it (flushPendingWrites).
          const { committed, durable } = rotations.commit({ consumed: pending, stored: values });
          await committed;
          readAhead.setPending(PENDING_DURABLE, durable);
        }
      },

      async find(id) {
        await flushPending();
        const ahead = aheadOf(model, 'id', id);
        if (ahead) return toPayload(ahead.value);
        if (model === 'RefreshToken' && readAhead.active()) return toPayload(await findRefreshTokenWithRelated(id));
        return first(queries.find({ model, key: id }));
      },

      async findByUserCode(userCode) {
        await flushPending();
        return first(queries.findByUserCode({ model, key: userCode }));
      },

      async findByUid(uid) {
        await flushPending();
        const ahead = aheadOf(model, 'uid', uid);
        if (ahead) return toPayload(ahead.value);
        return first(queries.findByUid({ model, key: uid }));
      },

      async consume(id) {
        await beforeWrite();
        const pending: PendingConsume = { model, id, now: clock() };
        // A rotation: committed with the new refresh token that follows (upsert), or before the response.
        if (model === 'RefreshToken' && readAhead.active()) readAhead.setPending(PENDING_CONSUME, pending);
        else await commitConsume(pending);
      },

      async destroy(id) {
        await beforeWrite();
        if (model === 'Grant') await deps.onGrantRevoked?.(id);
        await queries.destroy({ model, id });
      },

      async revokeByGrantId(grantId) {
        await beforeWrite();
        await queries.revokeByGrantId({ grantId });
      },
    };
  }

  return {
    adapterFactory: (name) => (name === 'Client' ? clientAdapter : modelAdapter(name)),
    async flushPendingWrites(request) {
      const pending = takePending<PendingConsume>(PENDING_CONSUME, request);
      if (pending) await commitConsume(pending);
      // A rotation committed in this request: answered only once on disk.
      await takePending<Promise<void>>(PENDING_DURABLE, request);
    },
    async purgeExpired() {
      const result = await db.deleteFrom('oidc_payloads').where('expires_at', '<=', clock()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
