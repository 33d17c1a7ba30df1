/**
 * Persisted signing keys. Rules:
 * - the private JWK is stored sealed with the SecretBox, never in clear;
 * - list() returns newest first (by creation time, then kid);
 * - at most one key replaces a given key (unique replaces_kid): insert() of a second successor
 *   is a no-op answering false, which is how concurrent instances agree on one rotation;
 * - a first key (see ensureSigningKey) is stored with replaces_kid FIRST_KEY, so two first keys
 *   cannot both be stored either; it reads back as replacesKid null.
 */
import type { Kysely, Selectable } from 'kysely';
import type { JWK } from 'jose';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { AuthSchema, SigningKeysTable } from '../storage/schema.ts';

export interface SigningKey {
  kid: string;
  alg: 'RS256';
  privateJwk: JWK;
  createdAt: number;
  /** When the key starts signing; null: active since createdAt. */
  activatesAt: number | null;
  /** The key this one was scheduled to replace; null for a first or manually rotated key. */
  replacesKid: string | null;
  retiredAt: number | null;
  expiresAt: number | null;
}

export interface KeyStore {
  list(): Promise<SigningKey[]>;
  /** Stores the key; false (nothing stored) when another key already replaces key.replacesKid. */
  insert(key: SigningKey): Promise<boolean>;
  retire(kid: string, retiredAt: number, expiresAt: number): Promise<void>;
  remove(kid: string): Promise<boolean>;
}

/** replaces_kid of a key created because there was no active key and no key at all. */
export const FIRST_KEY = '(first key)';

const num = (value: number | null): number | null => (value === null ? null : Number(value));

export function createKeyStore(db: Kysely<AuthSchema>, box: SecretBox): KeyStore {
  const toKey = (row: Selectable<SigningKeysTable>): SigningKey => ({
    kid: row.kid,
    alg: row.alg as 'RS256',
    privateJwk: JSON.parse(box.open(row.private_jwk_sealed)) as JWK,
    createdAt: Number(row.created_at),
    activatesAt: num(row.activates_at),
    replacesKid: row.replaces_kid === FIRST_KEY ? null : row.replaces_kid,
    retiredAt: num(row.retired_at),
    expiresAt: num(row.expires_at),
  });

  return {
    async list() {
      const rows = await db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').orderBy('kid', 'desc').execute();
      return rows.map(toKey);
    },

    async insert(key) {
      const result = await db
        .insertInto('signing_keys')
        .values({
          kid: key.kid,
          alg: key.alg,
          private_jwk_sealed: box.seal(JSON.stringify(key.privateJwk)),
          created_at: key.createdAt,
          activates_at: key.activatesAt,
          replaces_kid: key.replacesKid,
          retired_at: key.retiredAt,
          expires_at: key.expiresAt,
        })
        .onConflict((oc) => oc.column('replaces_kid').doNothing())
        .returning('kid')
        .executeTakeFirst();
      return result !== undefined;
    },

    async retire(kid, retiredAt, expiresAt) {
      await db.updateTable('signing_keys').set({ retired_at: retiredAt, expires_at: expiresAt }).where('kid', '=', kid).execute();
    },

    async remove(kid) {
      const result = await db.deleteFrom('signing_keys').where('kid', '=', kid).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
