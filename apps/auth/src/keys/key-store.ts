/**
 * Persisted signing keys. Rules:
 * - the private JWK is stored sealed with the SecretBox, never in clear;
 * - list() returns newest first (by creation time, then kid), the order the signer needs.
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
  retiredAt: number | null;
  expiresAt: number | null;
}

export interface KeyStore {
  list(): Promise<SigningKey[]>;
  insert(key: SigningKey): Promise<void>;
  retire(kid: string, retiredAt: number, expiresAt: number): Promise<void>;
  remove(kid: string): Promise<boolean>;
}

export function createKeyStore(db: Kysely<AuthSchema>, box: SecretBox): KeyStore {
  const toKey = (row: Selectable<SigningKeysTable>): SigningKey => ({
    kid: row.kid,
    alg: row.alg as 'RS256',
    privateJwk: JSON.parse(box.open(row.private_jwk_sealed)) as JWK,
    createdAt: Number(row.created_at),
    retiredAt: row.retired_at === null ? null : Number(row.retired_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
  });

  return {
    async list() {
      const rows = await db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').orderBy('kid', 'desc').execute();
      return rows.map(toKey);
    },

    async insert(key) {
      await db
        .insertInto('signing_keys')
        .values({
          kid: key.kid,
          alg: key.alg,
          private_jwk_sealed: box.seal(JSON.stringify(key.privateJwk)),
          created_at: key.createdAt,
          retired_at: key.retiredAt,
          expires_at: key.expiresAt,
        })
        .execute();
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
