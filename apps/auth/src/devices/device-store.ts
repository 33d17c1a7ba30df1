/**
 * Enrolled web authenticators. Rules:
 * - a device belongs to one account and is removed with it;
 * - names are 1–64 printable characters (trimmed);
 * - `remove` is scoped to the owner, so one user can never remove another user's device;
 * - useNonce records a signed request's nonce once per device (one INSERT on the primary key):
 *   the second use of the same nonce returns false, on every instance.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { precompile } from '@gatehouse/db';
import type { AuthSchema, DevicesTable } from '../storage/schema.ts';

export interface PublicKeyJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
}

export interface Device {
  id: string;
  accountId: string;
  name: string;
  publicKey: PublicKeyJwk;
  createdAt: number;
  lastUsedAt: number | null;
}

export interface DeviceStore {
  create(input: { accountId: string; name: string; publicKey: PublicKeyJwk }): Promise<Device>;
  find(id: string): Promise<Device | undefined>;
  listByAccount(accountId: string): Promise<Device[]>;
  countByAccount(accountId: string): Promise<number>;
  /** Removes the device only when it belongs to the account. */
  remove(accountId: string, id: string): Promise<boolean>;
  touch(id: string, atMs: number): Promise<void>;
  /** Records a nonce until expiresAtMs; false when the device already used it (replay). */
  useNonce(deviceId: string, nonce: string, nowMs: number, expiresAtMs: number): Promise<boolean>;
}

export function normalizeDeviceName(name: string): string | undefined {
  const trimmed = name.trim();
  return /^[^\p{Cc}]{1,64}$/u.test(trimmed) ? trimmed : undefined;
}

export function createDeviceStore(db: Kysely<AuthSchema>, clock: () => number = Date.now): DeviceStore {
  // Run by every second-factor page (interactions/mfa-step.ts): compiled once.
  const countByAccountQuery = precompile(db, ['accountId'], (v) =>
    db
      .selectFrom('devices')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('account_id', '=', v.accountId),
  );
  const toDevice = (row: Selectable<DevicesTable>): Device => ({
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    publicKey: JSON.parse(row.public_key_jwk) as PublicKeyJwk,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
  });

  return {
    async create({ accountId, name, publicKey }) {
      const row = {
        id: randomUUID(),
        account_id: accountId,
        name,
        public_key_jwk: JSON.stringify({ kty: publicKey.kty, crv: publicKey.crv, x: publicKey.x, y: publicKey.y }),
        created_at: clock(),
        last_used_at: null,
      };
      await db.insertInto('devices').values(row).execute();
      return toDevice(row);
    },

    async find(id) {
      const row = await db.selectFrom('devices').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toDevice(row);
    },

    async listByAccount(accountId) {
      const rows = await db.selectFrom('devices').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
      return rows.map(toDevice);
    },

    async countByAccount(accountId) {
      const row = (await countByAccountQuery({ accountId })).rows[0];
      return Number(row?.n ?? 0);
    },

    async remove(accountId, id) {
      const result = await db.deleteFrom('devices').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async touch(id, atMs) {
      await db.updateTable('devices').set({ last_used_at: atMs }).where('id', '=', id).execute();
    },

    async useNonce(deviceId, nonce, nowMs, expiresAtMs) {
      await db.deleteFrom('device_nonces').where('expires_at', '<', nowMs).execute();
      const result = await db
        .insertInto('device_nonces')
        .values({ device_id: deviceId, nonce, expires_at: expiresAtMs })
        .onConflict((oc) => oc.columns(['device_id', 'nonce']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },
  };
}
