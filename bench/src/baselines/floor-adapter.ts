/**
 * The oidc-provider adapter of a floor (bench/README.md, "Token path"): the memory baseline plus
 * the least durable work Gatehouse's guarantees require on one storage engine for one grant.
 * Rules:
 * - every model stays in oidc-provider's own memory adapter, as in the memory baseline, except the
 *   one model of the floor's kind;
 * - the refresh floor (`refresh`, budget 3a) keeps RefreshToken in the engine: a refresh reads the
 *   presented token by primary key (one statement); its consumption is held in memory until the
 *   rotation that follows it (oidc-provider's refresh grant always makes one) and is stored with the
 *   new token in one transaction, one commit; its clients stay in memory;
 * - the client floor (`client`, budget 3b) reads Client from the engine on every lookup, by
 *   primary key, one statement (a removed client must stop at once); the clients it reads are
 *   written there once, before any measurement; its tokens stay in memory;
 * - nothing else: no grant, session or account row, no index but the primary keys, no audit, no log
 *   (checked-floor.ts is the refresh floor with those, reported beside the budget).
 * Not a server to run: a consumption reaches the engine only with the rotation that follows it.
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';

/** A refresh token's row. Times are epoch milliseconds. */
export interface TokenRow {
  readonly payload: string;
  readonly consumedAt: number | null;
  readonly expiresAt: number | null;
}

/** What a floor stores in its engine: its refresh tokens (3a) or its client rows (3b). */
export type FloorKind = 'refresh' | 'client';

/** The statements of a refresh floor on one engine. */
export interface RefreshFloorEngine {
  readonly kind: 'refresh';
  readToken(id: string): Promise<TokenRow | undefined>;
  /** Stores a new token and, in the same transaction, marks the consumed one. */
  storeToken(token: { id: string; payload: string; expiresAt: number | null }, consumed: { id: string; at: number } | undefined): Promise<void>;
  deleteToken(id: string): Promise<void>;
  deleteTokensOfGrant(grantId: string): Promise<void>;
  close(): Promise<void>;
}

/** The statements of a client floor on one engine. */
export interface ClientFloorEngine {
  readonly kind: 'client';
  /** A client's metadata (JSON), by client id. */
  readClient(id: string): Promise<string | undefined>;
  /** Stores a client's metadata (set-up only, not measured). */
  saveClient(id: string, metadata: string): Promise<void>;
  close(): Promise<void>;
}

export type FloorEngine = RefreshFloorEngine | ClientFloorEngine;

export function floorAdapter(engine: FloorEngine): (model: string) => Adapter {
  const memory = createMemoryAdapter();
  if (engine.kind === 'client') {
    const clients = clientAdapter(engine);
    return (model) => (model === 'Client' ? clients : memory(model));
  }
  const refreshTokens = refreshTokenAdapter(engine);
  return (model) => (model === 'RefreshToken' ? refreshTokens : memory(model));
}

const nothing = async () => undefined;

/** A stored row's payload as oidc-provider reads it (its consumption as `consumed`), or undefined when absent or expired. */
export function payloadOfRow(row: TokenRow | undefined): AdapterPayload | undefined {
  if (!row || (row.expiresAt !== null && row.expiresAt <= Date.now())) return undefined;
  const payload = JSON.parse(row.payload) as AdapterPayload;
  if (row.consumedAt !== null) payload.consumed = Math.floor(row.consumedAt / 1000);
  return payload;
}

/**
 * A refresh token's consumption, held from oidc-provider's `consume` until the rotation that
 * follows it stores the grant's next token (the floors' rule above).
 */
export interface HeldConsumptions {
  /** A token was read: its grant, for its consumption. */
  found(id: string, payload: AdapterPayload): void;
  consume(id: string): void;
  /** The consumption to store with a new token of the payload's grant, now taken. */
  takeFor(payload: AdapterPayload): { id: string; at: number } | undefined;
}

export function heldConsumptions(): HeldConsumptions {
  const grantOf = new Map<string, string>();
  const consumedByGrant = new Map<string, { id: string; at: number }>();
  return {
    found(id, payload) {
      if (typeof payload.grantId === 'string') grantOf.set(id, payload.grantId);
    },
    consume(id) {
      const grantId = grantOf.get(id);
      grantOf.delete(id);
      if (grantId === undefined) throw new Error(`floor: consume of a refresh token not found first (${id})`);
      consumedByGrant.set(grantId, { id, at: Date.now() });
    },
    takeFor(payload) {
      const consumed = typeof payload.grantId === 'string' ? consumedByGrant.get(payload.grantId) : undefined;
      if (consumed) consumedByGrant.delete(payload.grantId!);
      return consumed;
    },
  };
}

function refreshTokenAdapter(engine: RefreshFloorEngine): Adapter {
  const held = heldConsumptions();
  return {
    async find(id) {
      const payload = payloadOfRow(await engine.readToken(id));
      if (payload) held.found(id, payload);
      return payload;
    },
    async consume(id) {
      held.consume(id);
    },
    async upsert(id, payload, expiresIn) {
      const { consumed: _consumed, ...rest } = payload;
      await engine.storeToken({ id, payload: JSON.stringify(rest), expiresAt: typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : null }, held.takeFor(payload));
    },
    destroy: (id) => engine.deleteToken(id),
    revokeByGrantId: (grantId) => engine.deleteTokensOfGrant(grantId),
    findByUid: nothing,
    findByUserCode: nothing,
  };
}

function clientAdapter(engine: ClientFloorEngine): Adapter {
  return {
    async find(id) {
      const metadata = await engine.readClient(id);
      return metadata === undefined ? undefined : (JSON.parse(metadata) as AdapterPayload);
    },
    upsert: (id, payload) => engine.saveClient(id, JSON.stringify(payload)),
    consume: nothing,
    destroy: nothing,
    revokeByGrantId: nothing,
    findByUid: nothing,
    findByUserCode: nothing,
  };
}
