/**
 * The account page's "Sign-in providers": the upstream identity providers linked to the account
 * (federation/account-link-store.ts). Each link is listed with its provider's display name (its
 * slug when the provider is gone), when it was made and when it last signed the user in.
 */
import type { HandlerServices } from '../interactions/deps.ts';
import type { LinkedProviderView } from '../views/account-page.ts';

export type LinkedProvidersDeps = Pick<HandlerServices, 'accountLinks' | 'identityProviders'>;

export async function linkedProviders(deps: LinkedProvidersDeps, accountId: string): Promise<LinkedProviderView[]> {
  const links = await deps.accountLinks.listByAccount(accountId);
  return Promise.all(
    links.map(async (link) => ({
      provider: link.provider,
      name: await deps.identityProviders.get(link.provider).then(
        (found) => found.displayName,
        () => link.provider,
      ),
      createdAt: link.createdAt,
      lastUsedAt: link.lastUsedAt,
    })),
  );
}

