/**
 * WebAuthn credentials (passkeys and security keys) of the accounts. Rules:
 * - a credential belongs to one account and is removed with it; its id (chosen by the
 *   authenticator) is unique across accounts, so registering one twice is refused (false);
 * - names are 1–64 printable characters (trimmed), like device names;
 * - `recordUse` moves the signature counter forward only from the value the caller verified
 *   against (compare-and-set), so two concurrent uses of a cloned key cannot both pass;
 * - `remove` is scoped to the owner, so one user can never remove another user's credential.
 */
import type { Kysely, Selectable } from 'kysely';
import type { AuthSchema, PasskeysTable } from '../storage/schema.ts';

export type PasskeyDeviceType = 'singleDevice' | 'multiDevice';

export interface Passkey {
  /** The credential id, base64url. */
  id: string;
  accountId: string;
  name: string;
  /** The COSE public key. */
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  deviceType: PasskeyDeviceType;
  backedUp: boolean;
  createdAt: number;
  lastUsedAt: number | null;
}

export type NewPasskey = Omit<Passkey, 'createdAt' | 'lastUsedAt'>;

export interface PasskeyStore {
  /** Stores a new credential; false when its id is already registered. */
  add(passkey: NewPasskey): Promise<boolean>;
  find(id: string): Promise<Passkey | undefined>;
  listByAccount(accountId: string): Promise<Passkey[]>;
  countByAccount(accountId: string): Promise<number>;
  /** Records a use: the counter moves from `fromCounter` to `toCounter`; false when it moved meanwhile. */
  recordUse(id: string, fromCounter: number, toCounter: number, atMs: number): Promise<boolean>;
  /** Removes the credential only when it belongs to the account. */
  remove(accountId: string, id: string): Promise<boolean>;
}

export function createPasskeyStore(db: Kysely<AuthSchema>, clock: () => number = Date.now): PasskeyStore {
  const toPasskey = (row: Selectable<PasskeysTable>): Passkey => ({
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    publicKey: new Uint8Array(Buffer.from(row.public_key, 'base64url')),
    counter: Number(row.counter),
    transports: JSON.parse(row.transports) as string[],
    deviceType: row.device_type === 'multiDevice' ? 'multiDevice' : 'singleDevice',
    backedUp: Number(row.backed_up) === 1,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
  });

  return {
    async add(passkey) {
      const result = await db
        .insertInto('passkeys')
        .values({
          id: passkey.id,
          account_id: passkey.accountId,
          name: passkey.name,
          public_key: Buffer.from(passkey.publicKey).toString('base64url'),
          counter: passkey.counter,
          transports: JSON.stringify(passkey.transports),
          device_type: passkey.deviceType,
          backed_up: passkey.backedUp ? 1 : 0,
          created_at: clock(),
          last_used_at: null,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    async find(id) {
      const row = await db.selectFrom('passkeys').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toPasskey(row) : undefined;
    },
    async listByAccount(accountId) {
      const rows = await db.selectFrom('passkeys').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
      return rows.map(toPasskey);
    },
    async countByAccount(accountId) {
      const row = await db.selectFrom('passkeys').select((eb) => eb.fn.countAll<string | number>().as('n')).where('account_id', '=', accountId).executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    async recordUse(id, fromCounter, toCounter, atMs) {
      const result = await db
        .updateTable('passkeys')
        .set({ counter: toCounter, last_used_at: atMs })
        .where('id', '=', id)
        .where('counter', '=', fromCounter)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async remove(accountId, id) {
      const result = await db.deleteFrom('passkeys').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
  };
}
