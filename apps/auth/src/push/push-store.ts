/**
 * Push transactions: one sign-in waiting for approval on an authenticator. Rules:
 * - a transaction is PENDING until a device decides it (APPROVED / REJECTED) or it expires (TIMEOUT);
 * - expiry is enforced on read: a PENDING row past expires_at is turned into TIMEOUT and never
 *   returned as PENDING, and decide() refuses it;
 * - `live_uid` holds the interaction uid while PENDING and is UNIQUE, so one login has at most one
 *   live push even when two requests race on two instances;
 * - decide() and complete() are conditional UPDATEs, so a transaction is decided once and an
 *   approval finishes one login once (a replayed approval changes nothing);
 * - a REJECTED push keeps why (`refusal`: denied, or a wrong number);
 * - report() marks a REJECTED push as reported "not me" once (a conditional UPDATE).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { AuthSchema, PushRefusal, PushState, PushTransactionsTable } from '../storage/schema.ts';

export type { PushRefusal, PushState } from '../storage/schema.ts';

export interface PushTransaction {
  id: string;
  accountId: string;
  interactionUid: string;
  number: number;
  choices: number[];
  state: PushState;
  clientName: string;
  ip: string;
  userAgent: string;
  createdAt: number;
  expiresAt: number;
  decidedAt: number | null;
  deviceId: string | null;
  completedAt: number | null;
  refusal: PushRefusal | null;
  reportedAt: number | null;
}

export interface NewPushTransaction {
  accountId: string;
  interactionUid: string;
  number: number;
  choices: number[];
  clientName: string;
  ip: string;
  userAgent: string;
  expiresAt: number;
}

export interface PushStore {
  /** Creates a push for the login, or returns the login's live one (`created: false`). */
  create(input: NewPushTransaction): Promise<{ transaction: PushTransaction; created: boolean }>;
  find(id: string): Promise<PushTransaction | undefined>;
  /** The login's live (PENDING, unexpired) push, if any. */
  findLive(interactionUid: string): Promise<PushTransaction | undefined>;
  /** The login's most recent push, whatever its state. */
  findLatest(interactionUid: string): Promise<PushTransaction | undefined>;
  /** Live pushes of an account, oldest first. */
  listPending(accountId: string): Promise<PushTransaction[]>;
  /** How many pushes the account started at or after sinceMs (rate limiting). */
  countSince(accountId: string, sinceMs: number): Promise<number>;
  /** Decides a live push (a rejection with its reason, a denial unless told); false when it is no longer PENDING (decided, expired) or unknown. */
  decide(id: string, state: 'APPROVED' | 'REJECTED', deviceId: string | null, refusal?: PushRefusal): Promise<boolean>;
  /** Marks a REJECTED push as reported by its user; false when it is not REJECTED or was reported already. */
  report(id: string): Promise<boolean>;
  /** Marks an approval as having finished its login; false when it was already used or is not APPROVED. */
  complete(id: string): Promise<boolean>;
}

export function createPushStore(db: Kysely<AuthSchema>, clock: () => number = Date.now): PushStore {
  const toTransaction = (row: Selectable<PushTransactionsTable>): PushTransaction => ({
    id: row.id,
    accountId: row.account_id,
    interactionUid: row.interaction_uid,
    number: Number(row.number),
    choices: JSON.parse(row.choices) as number[],
    state: row.state,
    clientName: row.client_name,
    ip: row.ip,
    userAgent: row.user_agent,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    decidedAt: row.decided_at === null ? null : Number(row.decided_at),
    deviceId: row.device_id,
    completedAt: row.completed_at === null ? null : Number(row.completed_at),
    refusal: row.refusal,
    reportedAt: row.reported_at === null ? null : Number(row.reported_at),
  });

  /** Turns every PENDING push past its expiry into TIMEOUT (of one account or login when given). */
  async function expireDue(filter: { accountId?: string; interactionUid?: string; id?: string }): Promise<void> {
    let query = db
      .updateTable('push_transactions')
      .set({ state: 'TIMEOUT', live_uid: null })
      .where('state', '=', 'PENDING')
      .where('expires_at', '<=', clock());
    if (filter.accountId) query = query.where('account_id', '=', filter.accountId);
    if (filter.interactionUid) query = query.where('interaction_uid', '=', filter.interactionUid);
    if (filter.id) query = query.where('id', '=', filter.id);
    await query.execute();
  }

  const select = () => db.selectFrom('push_transactions').selectAll();

  return {
    async create(input) {
      await expireDue({ interactionUid: input.interactionUid });
      const row = {
        id: randomUUID(),
        account_id: input.accountId,
        interaction_uid: input.interactionUid,
        live_uid: input.interactionUid,
        number: input.number,
        choices: JSON.stringify(input.choices),
        state: 'PENDING' as const,
        client_name: input.clientName,
        ip: input.ip,
        user_agent: input.userAgent,
        created_at: clock(),
        expires_at: input.expiresAt,
        decided_at: null,
        device_id: null,
        completed_at: null,
        refusal: null,
        reported_at: null,
      };
      const result = await db
        .insertInto('push_transactions')
        .values(row)
        .onConflict((oc) => oc.column('live_uid').doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) === 1) return { transaction: toTransaction(row), created: true };
      const live = await select().where('live_uid', '=', input.interactionUid).executeTakeFirst();
      if (!live) throw new Error('push transaction conflict without a live transaction');
      return { transaction: toTransaction(live), created: false };
    },

    async find(id) {
      await expireDue({ id });
      const row = await select().where('id', '=', id).executeTakeFirst();
      return row && toTransaction(row);
    },

    async findLive(interactionUid) {
      await expireDue({ interactionUid });
      const row = await select().where('live_uid', '=', interactionUid).executeTakeFirst();
      return row && toTransaction(row);
    },

    async findLatest(interactionUid) {
      await expireDue({ interactionUid });
      const row = await select().where('interaction_uid', '=', interactionUid).orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
      return row && toTransaction(row);
    },

    async listPending(accountId) {
      // Read-only (the authenticator's streams call it every few seconds): expired rows are
      // filtered out here and turned into TIMEOUT by the next find or create.
      const rows = await select()
        .where('account_id', '=', accountId)
        .where('state', '=', 'PENDING')
        .where('expires_at', '>', clock())
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toTransaction);
    },

    async countSince(accountId, sinceMs) {
      const row = await db
        .selectFrom('push_transactions')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', accountId)
        .where('created_at', '>=', sinceMs)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async decide(id, state, deviceId, refusal = 'denied') {
      const now = clock();
      const result = await db
        .updateTable('push_transactions')
        .set({ state, refusal: state === 'REJECTED' ? refusal : null, decided_at: now, device_id: deviceId, live_uid: null })
        .where('id', '=', id)
        .where('state', '=', 'PENDING')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async report(id) {
      const result = await db
        .updateTable('push_transactions')
        .set({ reported_at: clock() })
        .where('id', '=', id)
        .where('state', '=', 'REJECTED')
        .where('reported_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async complete(id) {
      const result = await db
        .updateTable('push_transactions')
        .set({ completed_at: clock() })
        .where('id', '=', id)
        .where('state', '=', 'APPROVED')
        .where('completed_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
