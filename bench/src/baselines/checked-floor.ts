/**
 * The checked refresh floor (reported beside budget 3a, not a budget; bench/README.md, "Token
 * path"): the refresh floor (floor-adapter.ts) plus the per-request checks and the record that
 * Gatehouse's guarantees add to a refresh, each stored the way apps/auth stores it. Rules:
 * - the refresh tokens, their Grants and their Sessions are rows of one payload table with the keys
 *   and indexes of apps/auth's `oidc_payloads` (storage/migrations.ts); the accounts have a table of
 *   their own; every other model stays in oidc-provider's memory adapter, as in the memory baseline;
 * - a refresh reads the presented token with its Grant, its Session and its account in one
 *   statement (as apps/auth's oidc/token-path-reads.ts does); what it read along answers the
 *   lookups of the same refresh that follow (the Grant, the Session, the account), once;
 * - a missing or disabled account stops the refresh (findAccount answers nothing);
 * - the consumption of a token is stored with the rotation that follows it, in one transaction
 *   (as in the refresh floor);
 * - every token answer appends one audit row; rows wait at most AUDIT_WINDOW_MS and are written
 *   in one statement per batch (as apps/auth's audit/audit-sink.ts), into a table with the indexes
 *   of apps/auth's `audit_events`;
 * - nothing else: no client row read, no log line, no metrics, no security headers.
 * Not a server to run: a consumption reaches the engine only with the rotation that follows it,
 * and a lookup of a Grant or Session answers only what the engine holds.
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';
import { heldConsumptions, payloadOfRow as payloadOf, type TokenRow } from './floor-adapter.ts';

/** The longest an audit row waits for its batch (apps/auth: audit/audit-sink.ts, BATCH_WINDOW_MS). */
export const AUDIT_WINDOW_MS = 100;

/** A payload row, with the keys apps/auth stores beside a payload. */
export interface ModelRow {
  readonly id: string;
  readonly payload: string;
  readonly grantId: string | null;
  readonly uid: string | null;
  readonly accountId: string | null;
  readonly sessionUid: string | null;
  readonly expiresAt: number | null;
}

/** A presented refresh token with what its statement read along with it. */
export interface TokenWithRelated {
  readonly token: TokenRow;
  readonly grant: TokenRow | undefined;
  readonly session: TokenRow | undefined;
  /** When the account was disabled (null: enabled); undefined when there is no such account. */
  readonly account: { readonly disabledAt: number | null } | undefined;
}

/** An audit row, in the columns apps/auth's audit/audit-event-store.ts fills for a token answer. */
export interface AuditRow {
  readonly occurredAt: number;
  readonly event: string;
  readonly clientId: string | null;
  readonly fields: string;
}

export type CheckedModel = 'Grant' | 'Session';

/** The statements of the checked floor on one engine. */
export interface CheckedFloorEngine {
  readTokenWithRelated(id: string): Promise<TokenWithRelated | undefined>;
  /** A Grant by id or a Session by uid, for a lookup the joined read did not answer. */
  readModel(model: CheckedModel, key: string): Promise<TokenRow | undefined>;
  /** Stores a new refresh token and, in the same transaction, marks the consumed one. */
  storeToken(token: ModelRow, consumed: { id: string; at: number } | undefined): Promise<void>;
  /** Stores a Grant or a Session (set-up only, not measured). */
  saveModel(model: CheckedModel, row: ModelRow): Promise<void>;
  /** Stores an enabled account (set-up only, not measured). */
  saveAccount(id: string): Promise<void>;
  appendAudit(rows: readonly AuditRow[]): Promise<void>;
  deleteToken(id: string): Promise<void>;
  deleteTokensOfGrant(grantId: string): Promise<void>;
  close(): Promise<void>;
}

export interface CheckedFloor {
  readonly adapter: (model: string) => Adapter;
  /** Whether the account of the refresh being answered exists and is enabled (from its joined read). */
  accountEnabled(accountId: string): boolean;
  /** Queues the audit row of a token answer. */
  audit(row: AuditRow): void;
  /** Writes the rows that wait. */
  flush(): Promise<void>;
}

const nothing = async () => undefined;

/** The row apps/auth would store for a payload: its keys beside it. */
function modelRow(id: string, payload: AdapterPayload, expiresIn: number | undefined): ModelRow {
  const { consumed: _consumed, ...rest } = payload;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    id,
    payload: JSON.stringify(rest),
    grantId: text(payload.grantId),
    uid: text(payload.uid),
    accountId: text(payload.accountId),
    sessionUid: text(payload.sessionUid),
    expiresAt: typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : null,
  };
}

export function checkedFloor(engine: CheckedFloorEngine): CheckedFloor {
  const memory = createMemoryAdapter();
  // What a joined read brought along, by key, each taken by the one lookup it answers.
  const grants = new Map<string, TokenRow | undefined>();
  const sessions = new Map<string, TokenRow | undefined>();
  const accounts = new Map<string, { disabledAt: number | null } | undefined>();
  const held = heldConsumptions();

  function take<T>(kept: Map<string, T>, key: string): { value: T } | undefined {
    if (!kept.has(key)) return undefined;
    const value = kept.get(key) as T;
    kept.delete(key);
    return { value };
  }

  const refreshTokens: Adapter = {
    async find(id) {
      const read = await engine.readTokenWithRelated(id);
      if (!read) return undefined;
      const payload = payloadOf(read.token);
      if (!payload) return undefined;
      held.found(id, payload);
      if (typeof payload.grantId === 'string') grants.set(payload.grantId, read.grant);
      if (typeof payload.sessionUid === 'string') sessions.set(payload.sessionUid, read.session);
      if (typeof payload.accountId === 'string') accounts.set(payload.accountId, read.account);
      return payload;
    },
    async consume(id) {
      held.consume(id);
    },
    async upsert(id, payload, expiresIn) {
      await engine.storeToken(modelRow(id, payload, expiresIn), held.takeFor(payload));
    },
    destroy: (id) => engine.deleteToken(id),
    revokeByGrantId: (grantId) => engine.deleteTokensOfGrant(grantId),
    findByUid: nothing,
    findByUserCode: nothing,
  };

  const stored = (model: CheckedModel, kept: Map<string, TokenRow | undefined>): Adapter => ({
    async find(id) {
      if (model === 'Session') return undefined;
      const hit = take(kept, id);
      return payloadOf(hit ? hit.value : await engine.readModel(model, id));
    },
    async findByUid(uid) {
      if (model !== 'Session') return undefined;
      const hit = take(kept, uid);
      return payloadOf(hit ? hit.value : await engine.readModel(model, uid));
    },
    upsert: (id, payload, expiresIn) => engine.saveModel(model, modelRow(id, payload, expiresIn)),
    consume: nothing,
    destroy: nothing,
    revokeByGrantId: nothing,
    findByUserCode: nothing,
  });
  const grantAdapter = stored('Grant', grants);
  const sessionAdapter = stored('Session', sessions);

  // The audit rows waiting, written one batch at a time.
  let waiting: AuditRow[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  const write = (): Promise<void> => {
    timer = undefined;
    const batch = waiting;
    waiting = [];
    writing = writing.then(() => (batch.length === 0 ? undefined : engine.appendAudit(batch)));
    return writing;
  };

  return {
    adapter: (model) => (model === 'RefreshToken' ? refreshTokens : model === 'Grant' ? grantAdapter : model === 'Session' ? sessionAdapter : memory(model)),
    accountEnabled(accountId) {
      const hit = take(accounts, accountId);
      if (!hit) throw new Error(`checked floor: account ${accountId} looked up without its refresh token`);
      return hit.value !== undefined && hit.value.disabledAt === null;
    },
    audit(row) {
      waiting.push(row);
      // A failed write stops the process: the run fails rather than measure a floor that stores nothing.
      timer ??= setTimeout(() => void write().catch((error: unknown) => process.nextTick(() => { throw error; })), AUDIT_WINDOW_MS);
    },
    flush() {
      if (timer) clearTimeout(timer);
      return write();
    },
  };
}
