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
 *   are inactive at introspection and revoked on the feed (`session-revoked`);
 * - list pages by username (keyset: the cursor is opaque to callers, a malformed one is an
 *   AccountError `invalid_input`); get finds by account id and adds the second factors enrolled.
 */
import { AccountError, type Account, type AccountStore } from '../accounts/account-store.ts';
import { disableAccount, enableAccount } from '../accounts/disable-account.ts';
import { hashPassword } from '../accounts/password.ts';
import { checkPassword } from '../accounts/password-policy.ts';
import { audit, type ActorFields, type Logger } from '../logging/logger.ts';
import type { RegulationStore } from '../regulation/regulation-store.ts';
import type { RevocationStore } from '../revocation/revocation-store.ts';
import type { DeviceStore } from '../devices/device-store.ts';
import type { PasskeyStore } from '../passkeys/passkey-store.ts';
import type { RecoveryCodeStore } from '../recovery/recovery-code-store.ts';
import type { UserSession, UserSessionStore } from './user-sessions.ts';

/** Who makes a change: authctl, an admin user's token, or a machine's (client_credentials) token (admin/http/). */
export type Actor = { kind: 'operator'; name: string } | { kind: 'account'; accountId: string } | { kind: 'client'; clientId: string };

/** The CLI's actor. */
export const CLI_OPERATOR: Actor = { kind: 'operator', name: 'cli' };

export interface UserAdminDeps {
  accounts: Pick<AccountStore, 'findByUsername' | 'findById' | 'page' | 'setPassword' | 'setDisabled'>;
  devices: Pick<DeviceStore, 'countByAccount'>;
  passkeys: Pick<PasskeyStore, 'countByAccount'>;
  recoveryCodes: Pick<RecoveryCodeStore, 'remaining'>;
  revocations: Pick<RevocationStore, 'revokeSubject'>;
  regulationStore: Pick<RegulationStore, 'clear'>;
  userSessions: UserSessionStore;
  logger: Logger;
  clock: () => number;
  /** The longest access-token lifetime, seconds (config.accessTokenTtl). */
  accessTokenTtl: number;
}

/** An account with the second factors it has enrolled. */
export interface UserDetails {
  account: Account;
  secondFactors: { totp: boolean; devices: number; passkeys: number; recoveryCodesLeft: number };
}

export interface UserPage {
  items: Account[];
  /** The cursor of the next page, or null on the last one. */
  next: string | null;
}

export interface UserAdmin {
  /** Accounts by username, `limit` at a time (1..200), after `after` (a cursor from a previous page). */
  list(query: { search?: string; after?: string; limit: number }): Promise<UserPage>;
  /** Throws AccountError `unknown_user`. */
  get(id: string): Promise<UserDetails>;
  setPassword(actor: Actor, username: string, password: string): Promise<Account>;
  disable(actor: Actor, username: string): Promise<Account>;
  enable(actor: Actor, username: string): Promise<Account>;
  /** Ends the account's lockouts; says how many recorded failures were cleared. */
  unlock(actor: Actor, username: string): Promise<{ account: Account; cleared: number }>;
  listSessions(username: string): Promise<{ account: Account; sessions: UserSession[] }>;
  signOutEverywhere(actor: Actor, username: string): Promise<{ account: Account; sessions: number; grants: number }>;
}

function actorFields(actor: Actor): ActorFields {
  switch (actor.kind) {
    case 'operator':
      return { actor_kind: 'operator', actor: actor.name };
    case 'account':
      return { actor_kind: 'account', actor: actor.accountId };
    case 'client':
      return { actor_kind: 'client', actor: actor.clientId };
  }
}

const encodeCursor = (username: string) => Buffer.from(JSON.stringify({ u: username })).toString('base64url');

function decodeCursor(cursor: string): string {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { u?: unknown };
    if (typeof value.u === 'string' && value.u !== '') return value.u;
  } catch {
    // Falls through to the refusal.
  }
  throw new AccountError('invalid_input', 'the cursor is not one this server issued');
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
    async list({ search, after, limit }) {
      const rows = await accounts.page({ search, after: after === undefined ? undefined : decodeCursor(after), limit: limit + 1 });
      const items = rows.slice(0, limit);
      return { items, next: rows.length > limit ? encodeCursor(items.at(-1)!.username) : null };
    },

    async get(id) {
      const account = await accounts.findById(id);
      if (!account) throw new AccountError('unknown_user', `no account with id ${id}`);
      const [devices, passkeys, recoveryCodesLeft] = await Promise.all([
        deps.devices.countByAccount(account.id),
        deps.passkeys.countByAccount(account.id),
        deps.recoveryCodes.remaining(account.id),
      ]);
      return { account, secondFactors: { totp: account.totpEnrolled, devices, passkeys, recoveryCodesLeft } };
    },

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
