/**
 * What each user allowed each client on the consent page (interactions/consent.ts). Rules:
 * - one record per user and client, of a client in the clients table (first-party clients and
 *   the static account client need none), kept across SSO sessions until the user revokes it
 *   (account page); removing the account or the client removes it (foreign keys, migration 019),
 *   so a client id registered again later asks again;
 * - allow() adds to the record: scopes granted before stay granted (a client that asks for one
 *   more scope later is asked about that one, and the record grows);
 * - the table's `claims` column stays empty: the `claims` parameter is not supported
 *   (discovery: claims_parameter_supported false), so there is no claim to consent to; dropping
 *   the column would take a migration of its own;
 * - a record keeps when it was first granted and when it last grew;
 * - revoke() deletes the record and says whether there was one; ending the client's grants
 *   (refresh tokens, access tokens) is the caller's part (account/connected-apps.ts).
 */
import type { Kysely } from 'kysely';
import type { AuthSchema } from '../storage/schema.ts';

export interface Consent {
  accountId: string;
  clientId: string;
  scopes: string[];
  grantedAt: number;
  updatedAt: number;
}

export interface ConsentStore {
  find(accountId: string, clientId: string): Promise<Consent | undefined>;
  /** Adds these scopes to the user's record for the client (creating it); returns the record. */
  allow(accountId: string, clientId: string, granted: { scopes: readonly string[] }): Promise<Consent>;
  /** The user's records, most recently granted first. */
  listByAccount(accountId: string): Promise<Consent[]>;
  /** Deletes the record; false when there was none. */
  revoke(accountId: string, clientId: string): Promise<boolean>;
}

const words = (value: string): string[] => value.split(' ').filter(Boolean);
const union = (a: readonly string[], b: readonly string[]): string[] => [...new Set([...a, ...b])];

type Row = AuthSchema['consents'];

const toConsent = (row: Row): Consent => ({
  accountId: row.account_id,
  clientId: row.client_id,
  scopes: words(row.scopes),
  grantedAt: Number(row.granted_at),
  updatedAt: Number(row.updated_at),
});

export function createConsentStore(db: Kysely<AuthSchema>, clock: () => number): ConsentStore {
  const find = async (accountId: string, clientId: string): Promise<Consent | undefined> => {
    const row = await db.selectFrom('consents').selectAll().where('account_id', '=', accountId).where('client_id', '=', clientId).executeTakeFirst();
    return row ? toConsent(row) : undefined;
  };

  return {
    find,

    async allow(accountId, clientId, granted) {
      const now = clock();
      // Read, merge, write in one transaction: two tabs allowing at once both land in the record.
      return db.transaction().execute(async (trx) => {
        const row = await trx.selectFrom('consents').selectAll().where('account_id', '=', accountId).where('client_id', '=', clientId).executeTakeFirst();
        const scopes = union(row ? words(row.scopes) : [], granted.scopes).join(' ');
        if (row) {
          await trx.updateTable('consents').set({ scopes, updated_at: now }).where('account_id', '=', accountId).where('client_id', '=', clientId).execute();
          return toConsent({ ...row, scopes, updated_at: now });
        }
        const fresh: Row = { account_id: accountId, client_id: clientId, scopes, claims: '', granted_at: now, updated_at: now };
        await trx
          .insertInto('consents')
          .values(fresh)
          .onConflict((oc) => oc.columns(['account_id', 'client_id']).doUpdateSet({ scopes, updated_at: now }))
          .execute();
        return toConsent(fresh);
      });
    },

    async listByAccount(accountId) {
      const rows = await db.selectFrom('consents').selectAll().where('account_id', '=', accountId).orderBy('granted_at', 'desc').orderBy('client_id').execute();
      return rows.map(toConsent);
    },

    async revoke(accountId, clientId) {
      const result = await db.deleteFrom('consents').where('account_id', '=', accountId).where('client_id', '=', clientId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
