/**
 * Links between an upstream identity provider's users and local accounts. Rules:
 * - a link is (provider slug, upstream subject) → account; that pair names at most one account
 *   (primary key), so a returning federated user is found by it alone, never by e-mail;
 * - an account holds at most one link per provider (Keycloak's rule): linking a second upstream
 *   user of the same provider is refused, the first must be removed;
 * - create() refuses with a stable code (`already_linked`, `provider_already_linked`,
 *   `unknown_account`) instead of overwriting: the caller decides what the user sees;
 * - each link keeps when it was made and when it last signed someone in (touch, injected clock);
 * - removing the account removes its links (foreign key, migration 027); removing a provider
 *   is the caller's removeByProvider.
 */
import type { Kysely, Selectable } from 'kysely';
import type { AccountLinksTable, AuthSchema } from '../storage/schema.ts';
import { CodedError } from '../errors/coded-error.ts';

export interface AccountLink {
  /** The identity provider's slug. */
  provider: string;
  /** The upstream's stable id of the user. */
  subject: string;
  accountId: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export type AccountLinkErrorCode = 'already_linked' | 'provider_already_linked' | 'unknown_account';

export class AccountLinkError extends CodedError<AccountLinkErrorCode> {}

export interface AccountLinkStore {
  find(provider: string, subject: string): Promise<AccountLink | undefined>;
  /** Throws AccountLinkError `already_linked`, `provider_already_linked` or `unknown_account`. */
  create(input: { provider: string; subject: string; accountId: string }): Promise<AccountLink>;
  /** The account's links, oldest first. */
  listByAccount(accountId: string): Promise<AccountLink[]>;
  /** Removes the account's link to the provider; false when there was none. */
  remove(accountId: string, provider: string): Promise<boolean>;
  /** Removes every link to the provider; how many there were. */
  removeByProvider(provider: string): Promise<number>;
  /** Records a sign-in through the link now. */
  touch(provider: string, subject: string): Promise<void>;
}

const toLink = (row: Selectable<AccountLinksTable>): AccountLink => ({
  provider: row.provider,
  subject: row.subject,
  accountId: row.account_id,
  createdAt: Number(row.created_at),
  lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
});

export function createAccountLinkStore(db: Kysely<AuthSchema>, clock: () => number): AccountLinkStore {
  const find = async (provider: string, subject: string): Promise<AccountLink | undefined> => {
    const row = await db.selectFrom('account_links').selectAll().where('provider', '=', provider).where('subject', '=', subject).executeTakeFirst();
    return row ? toLink(row) : undefined;
  };

  return {
    find,

    async create({ provider, subject, accountId }) {
      const row = { provider, subject, account_id: accountId, created_at: clock(), last_used_at: null };
      return db.transaction().execute(async (trx) => {
        const account = await trx.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
        if (!account) throw new AccountLinkError('unknown_account', `no account with id ${accountId}`);
        const taken = await trx.selectFrom('account_links').select('account_id').where('provider', '=', provider).where('subject', '=', subject).executeTakeFirst();
        if (taken) throw new AccountLinkError('already_linked', `this ${provider} user is already linked to an account`);
        const other = await trx.selectFrom('account_links').select('subject').where('account_id', '=', accountId).where('provider', '=', provider).executeTakeFirst();
        if (other) throw new AccountLinkError('provider_already_linked', `the account is already linked to another ${provider} user`);
        // Two requests racing past the checks: the constraints let one insert land.
        const result = await trx.insertInto('account_links').values(row).onConflict((oc) => oc.doNothing()).executeTakeFirst();
        if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) throw new AccountLinkError('already_linked', `this ${provider} user is already linked to an account`);
        return toLink(row);
      });
    },

    async listByAccount(accountId) {
      const rows = await db.selectFrom('account_links').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('provider').execute();
      return rows.map(toLink);
    },

    async remove(accountId, provider) {
      const result = await db.deleteFrom('account_links').where('account_id', '=', accountId).where('provider', '=', provider).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async removeByProvider(provider) {
      const result = await db.deleteFrom('account_links').where('provider', '=', provider).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async touch(provider, subject) {
      await db.updateTable('account_links').set({ last_used_at: clock() }).where('provider', '=', provider).where('subject', '=', subject).execute();
    },
  };
}
