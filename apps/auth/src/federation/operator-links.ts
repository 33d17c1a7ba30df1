/**
 * Links between upstream users and local accounts made and removed by an operator (`authctl user
 * link|unlink|links`), beside the ones users make by signing in. Rules:
 * - the account is named by its username and the provider by its slug; either unknown is refused
 *   (AccountError `unknown_user`, IdentityProviderError `unknown_provider`);
 * - the upstream subject is what the provider's subject claim holds for the user (OpenID Connect
 *   `sub`; GitHub's numeric id in decimal): 1-256 visible characters, else OperatorLinkError
 *   `invalid_input`;
 * - a link is never moved or overwritten: the store refuses an upstream user already linked
 *   (`already_linked`) and an account already linked to another user of the provider
 *   (`provider_already_linked`); unlink first;
 * - unlink removes the account's link to the provider; an account without one is `not_linked`;
 * - each change is audited (`account.linked` / `account.unlinked`, via `operator`, with the
 *   actor); reads are not.
 */
import type { AccountStore } from '../accounts/account-store.ts';
import { AccountError } from '../accounts/account-store.ts';
import { actorFields, type Actor } from '../audit/actor.ts';
import type { Auditor } from '../audit/auditor.ts';
import { CodedError } from '../errors/coded-error.ts';
import type { AccountLink, AccountLinkStore } from './account-link-store.ts';
import { IdentityProviderError } from './identity-provider.ts';
import type { IdentityProviderStore } from './identity-provider-store.ts';

export type OperatorLinkErrorCode = 'invalid_input' | 'not_linked';

export class OperatorLinkError extends CodedError<OperatorLinkErrorCode> {}

export interface OperatorLinksDeps {
  accounts: Pick<AccountStore, 'findByUsername'>;
  providers: Pick<IdentityProviderStore, 'find'>;
  links: Pick<AccountLinkStore, 'create' | 'remove' | 'listByAccount'>;
  audit: Auditor;
}

export interface OperatorLinks {
  link(actor: Actor, username: string, provider: string, subject: string): Promise<AccountLink>;
  unlink(actor: Actor, username: string, provider: string): Promise<void>;
  /** The account's links, oldest first. */
  list(username: string): Promise<AccountLink[]>;
}

const SUBJECT = /^[\x21-\x7e]{1,256}$/;

export function createOperatorLinks(deps: OperatorLinksDeps): OperatorLinks {
  const { accounts, providers, links, audit } = deps;

  async function account(username: string) {
    const found = await accounts.findByUsername(username.toLowerCase());
    if (!found) throw new AccountError('unknown_user', `unknown user "${username}"`);
    return found;
  }
  async function provider(slug: string) {
    if (!(await providers.find(slug))) throw new IdentityProviderError('unknown_provider', `unknown identity provider "${slug}"`);
  }

  return {
    async link(actor, username, slug, subject) {
      if (!SUBJECT.test(subject)) throw new OperatorLinkError('invalid_input', 'the upstream subject must be 1-256 visible characters without spaces');
      const { id } = await account(username);
      await provider(slug);
      const link = await links.create({ provider: slug, subject, accountId: id });
      audit.record('account.linked', { account_id: id, provider: slug, via: 'operator', ...actorFields(actor) });
      return link;
    },

    async unlink(actor, username, slug) {
      const { id } = await account(username);
      if (!(await links.remove(id, slug))) throw new OperatorLinkError('not_linked', `${username} has no link to the identity provider "${slug}"`);
      audit.record('account.unlinked', { account_id: id, provider: slug, via: 'operator', ...actorFields(actor) });
    },

    async list(username) {
      return links.listByAccount((await account(username)).id);
    },
  };
}
