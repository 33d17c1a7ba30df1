/**
 * Operator changes to a user: one service for every front end (authctl today, an admin API
 * later). Rules:
 * - every change takes the `actor` who makes it and writes one audit event naming it
 *   (logging/logger.ts, `admin.user.*`); reads (listSessions) are not audited;
 * - an unknown username is an AccountError (`unknown user "<name>"`), never a silent no-op;
 * - setPassword applies the password policy (accounts/password-policy.ts) and ends the user's
 *   lockouts, since the counters guarded the old password; it leaves sessions alone
 *   (signOutEverywhere is the separate, explicit step);
 * - disable / enable: accounts/disable-account.ts (a disabled user cannot sign in; their
 *   sessions, refresh tokens and access tokens stop working at once);
 * - unlock deletes the failure counters of the account's password step (`account:<username>`)
 *   and second factor (`mfa:<username>`); counters of IPs and known devices are shared with
 *   other accounts or bound to a browser, and are left to expire;
 * - signOutEverywhere ends every SSO session and grant of the user (user-sessions.ts): the next
 *   authorize asks for a sign-in, refresh tokens answer invalid_grant, the grants' access tokens
 *   are inactive at introspection and revoked on the feed (`session-revoked`).
 */
import { AccountError, type Account, type AccountStore } from '../accounts/account-store.ts';
import { disableAccount, enableAccount } from '../accounts/disable-account.ts';
import { hashPassword } from '../accounts/password.ts';
import { checkPassword } from '../accounts/password-policy.ts';
import { audit, type ActorFields, type Logger } from '../logging/logger.ts';
import type { RegulationStore } from '../regulation/regulation-store.ts';
import type { RevocationStore } from '../revocation/revocation-store.ts';
import type { UserSession, UserSessionStore } from './user-sessions.ts';

export type Actor = { kind: 'operator'; name: string } | { kind: 'account'; accountId: string };

/** The CLI's actor. */
export const CLI_OPERATOR: Actor = { kind: 'operator', name: 'cli' };

export interface UserAdminDeps {
  accounts: Pick<AccountStore, 'findByUsername' | 'setPassword' | 'setDisabled'>;
  revocations: Pick<RevocationStore, 'revokeSubject'>;
  regulationStore: Pick<RegulationStore, 'clear'>;
  userSessions: UserSessionStore;
  logger: Logger;
  clock: () => number;
  /** The longest access-token lifetime, seconds (config.accessTokenTtl). */
  accessTokenTtl: number;
}

export interface UserAdmin {
  setPassword(actor: Actor, username: string, password: string): Promise<Account>;
  disable(actor: Actor, username: string): Promise<Account>;
  enable(actor: Actor, username: string): Promise<Account>;
  /** Ends the account's lockouts; says how many recorded failures were cleared. */
  unlock(actor: Actor, username: string): Promise<{ account: Account; cleared: number }>;
  listSessions(username: string): Promise<{ account: Account; sessions: UserSession[] }>;
  signOutEverywhere(actor: Actor, username: string): Promise<{ account: Account; sessions: number; grants: number }>;
}

export function actorFields(actor: Actor): ActorFields {
  return actor.kind === 'operator' ? { actor_kind: 'operator', actor: actor.name } : { actor_kind: 'account', actor: actor.accountId };
}

/** The regulation keys that lock the account out (interactions/regulation-keys.ts). */
function lockoutKeys(username: string): string[] {
  const name = username.toLowerCase();
  return [`account:${name}`, `mfa:${name}`];
}

export function createUserAdmin(deps: UserAdminDeps): UserAdmin {
  const { accounts, logger } = deps;
  const lifecycle = { accounts, revocations: deps.revocations, clock: deps.clock, accessTokenTtl: deps.accessTokenTtl };

  async function find(username: string): Promise<Account> {
    const account = await accounts.findByUsername(username);
    if (!account) throw new AccountError('unknown_user', `unknown user "${username}"`);
    return account;
  }

  return {
    async setPassword(actor, username, password) {
      checkPassword(password);
      const account = await find(username);
      await accounts.setPassword(account.id, await hashPassword(password));
      await deps.regulationStore.clear(lockoutKeys(account.username));
      audit(logger, 'admin.user.password_set', { ...actorFields(actor), account_id: account.id });
      return account;
    },

    async disable(actor, username) {
      const account = await disableAccount(lifecycle, username);
      if (!account) throw new AccountError('unknown_user', `unknown user "${username}"`);
      audit(logger, 'admin.user.disabled', { ...actorFields(actor), account_id: account.id });
      return account;
    },

    async enable(actor, username) {
      const account = await enableAccount(lifecycle, username);
      if (!account) throw new AccountError('unknown_user', `unknown user "${username}"`);
      audit(logger, 'admin.user.enabled', { ...actorFields(actor), account_id: account.id });
      return account;
    },

    async unlock(actor, username) {
      const account = await find(username);
      const cleared = await deps.regulationStore.clear(lockoutKeys(account.username));
      audit(logger, 'admin.user.unlocked', { ...actorFields(actor), account_id: account.id, cleared });
      return { account, cleared };
    },

    async listSessions(username) {
      const account = await find(username);
      return { account, sessions: await deps.userSessions.list(account.id) };
    },

    async signOutEverywhere(actor, username) {
      const account = await find(username);
      const ended = await deps.userSessions.endAll(account.id);
      audit(logger, 'admin.user.signed_out', { ...actorFields(actor), account_id: account.id, ...ended });
      return { account, ...ended };
    },
  };
}
