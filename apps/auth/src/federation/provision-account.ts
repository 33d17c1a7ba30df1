/**
 * Just-in-time provisioning of a federated user. Rules:
 * - the account gets the mapped profile (upstream-profile.ts) and no password (accounts/password.ts
 *   NO_PASSWORD); an e-mail is required, and it is the upstream's verified one;
 * - a taken username is de-duplicated: `name`, `name-2`, … `name-20`, then `name-` and random
 *   hex; a username is never shared and never taken over;
 * - the new account is linked to (provider, subject) at once; when another request linked that
 *   upstream user first, the account just made is removed and the existing link wins.
 */
import { randomBytes } from 'node:crypto';
import { AccountError, type Account, type AccountStore } from '../accounts/account-store.ts';
import { NO_PASSWORD } from '../accounts/password.ts';
import { AccountLinkError, type AccountLinkStore } from './account-link-store.ts';
import type { UpstreamProfile } from './upstream-profile.ts';

export interface ProvisionDeps {
  accounts: Pick<AccountStore, 'create' | 'remove' | 'findById'>;
  accountLinks: Pick<AccountLinkStore, 'create' | 'find'>;
}

const MAX_SUFFIX = 20;

function candidates(base: string): string[] {
  const withSuffix = (suffix: string) => `${base.slice(0, 64 - suffix.length)}${suffix}`;
  const list = [base];
  for (let n = 2; n <= MAX_SUFFIX; n += 1) list.push(withSuffix(`-${n}`));
  list.push(withSuffix(`-${randomBytes(4).toString('hex')}`));
  return list;
}

/** The account made for the upstream user (`created: true`), or the one another request linked first. */
export async function provisionAccount(
  deps: ProvisionDeps,
  link: { provider: string; subject: string },
  profile: UpstreamProfile & { email: string },
): Promise<{ account: Account; created: boolean }> {
  let account: Account | undefined;
  for (const username of candidates(profile.username)) {
    try {
      account = await deps.accounts.create({ username, email: profile.email, name: profile.name, groups: profile.groups, passwordHash: NO_PASSWORD });
      break;
    } catch (error) {
      if (!(error instanceof AccountError) || error.code !== 'duplicate_username') throw error;
    }
  }
  if (!account) throw new AccountError('duplicate_username', `no free username for "${profile.username}"`);
  try {
    await deps.accountLinks.create({ ...link, accountId: account.id });
    return { account, created: true };
  } catch (error) {
    if (!(error instanceof AccountLinkError) || error.code !== 'already_linked') throw error;
    await deps.accounts.remove(account.username);
    const existing = await deps.accountLinks.find(link.provider, link.subject);
    const winner = existing && (await deps.accounts.findById(existing.accountId));
    if (!winner) throw error;
    return { account: winner, created: false };
  }
}
