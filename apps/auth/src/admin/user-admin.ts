/**
 * Operator changes to a user: one service for every front end (authctl today, an admin API
 * later). Rules:
 * - every change takes the `actor` who makes it and writes one audit event naming it
 *   (audit/audit-events.ts, `admin.user.*`); reads (listSessions) are not audited;
 * - an unknown username is an AccountError (`unknown user "<name>"`), never a silent no-op;
 * - setPassword applies the password policy (accounts/password-policy.ts), ends the user's
 *   lockouts, since the counters guarded the old password, and ends every SSO session, grant
 *   and refresh token of the user (accounts/end-account-access.ts): whoever knew the old
 *   password is signed out everywhere;
 * - disable / enable: accounts/disable-account.ts (a disabled user cannot sign in; their
 *   sessions, grants, refresh tokens and access tokens end at once; enabling gives back the
 *   right to sign in, never a session);
 * - remove deletes the account and its data after ending everything it holds, as disable does;
 * - unlock deletes the failure counters of the account's password step (`account:<username>`)
 *   and second factor (`mfa:<username>`); counters of IPs and known devices are shared with
 *   other accounts or bound to a browser, and are left to expire;
 * - lockedUntil says when the brute-force lock of those same two keys ends (regulation/regulator.ts,
 *   exact, by the regulator's clock), or null when the account is not locked now (a progressive
 *   delay is not a lock); authctl's `user list` and the admin API's user both show it;
 * - signOutEverywhere ends every SSO session and grant of the user (sessions/user-sessions.ts): the next
 *   authorize asks for a sign-in, refresh tokens answer invalid_grant, the grants' access tokens
 *   are inactive at introspection and revoked on the feed (`session-revoked`);
 * - list pages by username (keyset: the cursor is opaque to callers, a malformed one is an
 *   AccountError `invalid_input`); get finds by account id and adds the second factors enrolled;
 * - create applies the account rules (account-store.ts) and, when a password is given, the
 *   password policy; without one the account gets a random password nobody knows (it cannot
 *   sign in until an operator sets one or the user follows a reset link);
 * - update changes email, name and groups; the audit line names the fields, not their values;
 *   a group change takes effect at the user's next token (admin scopes: at once, bearer.ts);
 * - resetSecondFactors removes the TOTP secret, authenticator devices, passkeys and recovery
 *   codes (the user enrols again at the next sign-in) and ends every session, grant and
 *   refresh token of the user: a session signed in with a lost factor does not outlive it;
 * - revokeGrant ends one grant of the user (sessions/user-sessions.ts endGrant); an unknown grant id, or
 *   one of another user, is a UserAdminError `unknown_grant`.
 */
import { keyCursor } from '../storage/key-cursor.ts';
import { AccountError, type Account, type AccountStore } from '../accounts/account-store.ts';
import { disableAccount, enableAccount } from '../accounts/disable-account.ts';
import { endAccountAccess } from '../accounts/end-account-access.ts';
import type { SessionMetaStore } from '../sessions/session-meta-store.ts';
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../accounts/password.ts';
import { CodedError } from '../errors/coded-error.ts';
import { checkPassword } from '../accounts/password-policy.ts';
import { actorFields, type Actor } from '../audit/actor.ts';
import type { Auditor } from '../audit/auditor.ts';
import type { RegulationStore } from '../regulation/regulation-store.ts';
import type { Regulator } from '../regulation/regulator.ts';
import type { RevocationStore } from '../revocation/revocation-store.ts';
import type { DeviceStore } from '../devices/device-store.ts';
import type { PasskeyStore } from '../passkeys/passkey-store.ts';
import type { RecoveryCodeStore } from '../recovery/recovery-code-store.ts';
import type { UserGrant, UserSession, UserSessionStore } from '../sessions/user-sessions.ts';
import type { BackchannelLogout } from '../sessions/backchannel-logout.ts';

export interface UserAdminDeps {
  accounts: Pick<AccountStore, 'create' | 'update' | 'findByUsername' | 'findById' | 'page' | 'setPassword' | 'setDisabled' | 'setTotpSecret' | 'remove'>;
  devices: Pick<DeviceStore, 'countByAccount' | 'listByAccount' | 'remove'>;
  passkeys: Pick<PasskeyStore, 'countByAccount' | 'listByAccount' | 'remove'>;
  recoveryCodes: Pick<RecoveryCodeStore, 'remaining' | 'removeAll'>;
  revocations: Pick<RevocationStore, 'revokeSubject'>;
  regulationStore: Pick<RegulationStore, 'clear'>;
  regulator: Pick<Regulator, 'lockedUntil'>;
  userSessions: UserSessionStore;
  sessionMeta: Pick<SessionMetaStore, 'remove'>;
  /** Tells the clients of the sessions it ends (sessions/backchannel-logout.ts); the server and authctl always give it. */
  backchannelLogout?: Pick<BackchannelLogout, 'sessionsEnded'>;
  audit: Auditor;
  clock: () => number;
  /** The longest access-token lifetime, seconds (config.accessTokenTtl). */
  accessTokenTtl: number;
}

/** An account with the second factors it has enrolled. */
export interface UserDetails {
  account: Account;
  secondFactors: { totp: boolean; devices: number; passkeys: number; recoveryCodesLeft: number };
}

export class UserAdminError extends CodedError<'unknown_grant'> {}

export interface NewUser {
  username: string;
  email: string;
  name: string;
  groups: string[];
  /** Checked against the password policy; absent: the account has no usable password yet. */
  password?: string;
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
  /** The account with this id; throws AccountError `unknown_user`. */
  byId(id: string): Promise<Account>;
  /** Throws AccountError `duplicate_username` / `invalid_input`, PasswordPolicyError. */
  create(actor: Actor, input: NewUser): Promise<Account>;
  /** Throws AccountError `unknown_user` / `invalid_input`. */
  update(actor: Actor, username: string, changes: { email?: string; name?: string; groups?: string[] }): Promise<Account>;
  resetSecondFactors(actor: Actor, username: string): Promise<{ account: Account; totp: boolean; devices: number; passkeys: number; recoveryCodes: number } & Ended>;
  listGrants(username: string): Promise<{ account: Account; grants: UserGrant[] }>;
  /** Throws UserAdminError `unknown_grant`. */
  revokeGrant(actor: Actor, username: string, grantId: string): Promise<Account>;
  setPassword(actor: Actor, username: string, password: string): Promise<Account & { ended: Ended }>;
  disable(actor: Actor, username: string): Promise<Account & { ended: Ended }>;
  /** Deletes the account after ending everything it holds; throws AccountError `unknown_user`. */
  remove(actor: Actor, username: string): Promise<{ account: Account } & Ended>;
  enable(actor: Actor, username: string): Promise<Account>;
  /** Ends the account's lockouts; says how many recorded failures were cleared. */
  unlock(actor: Actor, username: string): Promise<{ account: Account; cleared: number }>;
  /** When the account's brute-force lockout ends (epoch ms), or null when it is not locked now. */
  lockedUntil(username: string): Promise<number | null>;
  listSessions(username: string): Promise<{ account: Account; sessions: UserSession[] }>;
  signOutEverywhere(actor: Actor, username: string): Promise<{ account: Account; sessions: number; grants: number }>;
}

/** How many sessions and live grants a lockdown ended. */
export interface Ended {
  sessions: number;
  grants: number;
}

// A stored username (account-store.ts rules, lower-cased): nothing else reaches the query.
const usernameCursor = keyCursor('u', (key) => /^[a-z0-9._@-]{1,64}$/.test(key));

function decodeCursor(cursor: string): string {
  const username = usernameCursor.decode(cursor);
  if (username === undefined) throw new AccountError('invalid_input', 'the cursor is not one this server issued');
  return username;
}

/** The regulation keys that lock the account out (regulation/regulation-keys.ts). */
export function lockoutKeys(username: string): string[] {
  const name = username.toLowerCase();
  return [`account:${name}`, `mfa:${name}`];
}

export function createUserAdmin(deps: UserAdminDeps): UserAdmin {
  const { accounts, audit } = deps;
  const lifecycle = { accounts, revocations: deps.revocations, userSessions: deps.userSessions, sessionMeta: deps.sessionMeta, ...(deps.backchannelLogout ? { backchannelLogout: deps.backchannelLogout } : {}), clock: deps.clock, accessTokenTtl: deps.accessTokenTtl };

  async function find(username: string): Promise<Account> {
    const account = await accounts.findByUsername(username);
    if (!account) throw new AccountError('unknown_user', `unknown user "${username}"`);
    return account;
  }

  return {
    async list({ search, after, limit }) {
      const rows = await accounts.page({ search, after: after === undefined ? undefined : decodeCursor(after), limit: limit + 1 });
      const items = rows.slice(0, limit);
      return { items, next: rows.length > limit ? usernameCursor.encode(items.at(-1)!.username) : null };
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

    async byId(id) {
      const account = await accounts.findById(id);
      if (!account) throw new AccountError('unknown_user', `no account with id ${id}`);
      return account;
    },

    async create(actor, input) {
      if (input.password !== undefined) checkPassword(input.password);
      // Without a password: 32 random bytes nobody sees, so the account cannot sign in yet.
      const password = input.password ?? randomBytes(32).toString('base64url');
      const account = await accounts.create({ username: input.username, email: input.email, name: input.name, groups: input.groups, passwordHash: await hashPassword(password) });
      audit.record('admin.user.created', { ...actorFields(actor), account_id: account.id, password_set: input.password !== undefined });
      return account;
    },

    async update(actor, username, changes) {
      const found = await find(username);
      const account = await accounts.update(found.id, changes);
      const fields = (['email', 'name', 'groups'] as const).filter((f) => changes[f] !== undefined);
      audit.record('admin.user.updated', { ...actorFields(actor), account_id: account.id, fields: fields.join(',') });
      return account;
    },

    async resetSecondFactors(actor, username) {
      const account = await find(username);
      const totp = account.totpEnrolled;
      if (totp) await accounts.setTotpSecret(account.id, null);
      let devices = 0;
      for (const device of await deps.devices.listByAccount(account.id)) if (await deps.devices.remove(account.id, device.id)) devices++;
      let passkeys = 0;
      for (const passkey of await deps.passkeys.listByAccount(account.id)) if (await deps.passkeys.remove(account.id, passkey.id)) passkeys++;
      const recoveryCodes = await deps.recoveryCodes.removeAll(account.id);
      const { sessions, grants } = await endAccountAccess(lifecycle, account.id);
      audit.record('admin.user.second_factors_reset', { ...actorFields(actor), account_id: account.id, totp, devices, passkeys, recovery_codes_removed: recoveryCodes, sessions, grants });
      return { account: { ...account, totpEnrolled: false }, totp, devices, passkeys, recoveryCodes, sessions, grants };
    },

    async listGrants(username) {
      const account = await find(username);
      return { account, grants: await deps.userSessions.listGrants(account.id) };
    },

    async revokeGrant(actor, username, grantId) {
      const account = await find(username);
      if (!(await deps.userSessions.endGrant(account.id, grantId))) throw new UserAdminError('unknown_grant', `user "${account.username}" has no grant ${grantId}`);
      audit.record('admin.user.grant_revoked', { ...actorFields(actor), account_id: account.id, grant_id: grantId });
      return account;
    },

    async setPassword(actor, username, password) {
      checkPassword(password);
      const account = await find(username);
      await accounts.setPassword(account.id, await hashPassword(password));
      await deps.regulationStore.clear(lockoutKeys(account.username));
      const { sessions, grants } = await endAccountAccess(lifecycle, account.id);
      audit.record('admin.user.password_set', { ...actorFields(actor), account_id: account.id, sessions, grants });
      return { ...account, ended: { sessions, grants } };
    },

    async disable(actor, username) {
      const account = await disableAccount(lifecycle, username);
      if (!account) throw new AccountError('unknown_user', `unknown user "${username}"`);
      const { sessions, grants } = account.ended;
      audit.record('admin.user.disabled', { ...actorFields(actor), account_id: account.id, sessions, grants });
      return account;
    },

    async remove(actor, username) {
      const account = await find(username);
      // Ended first: the session and grant rows name the account, and go before it does.
      const { sessions, grants } = await endAccountAccess(lifecycle, account.id, { revokeSubject: true });
      if (!(await accounts.remove(account.username))) throw new AccountError('unknown_user', `unknown user "${username}"`);
      audit.record('admin.user.removed', { ...actorFields(actor), account_id: account.id, sessions, grants });
      return { account, sessions, grants };
    },

    async enable(actor, username) {
      const account = await enableAccount(lifecycle, username);
      if (!account) throw new AccountError('unknown_user', `unknown user "${username}"`);
      audit.record('admin.user.enabled', { ...actorFields(actor), account_id: account.id });
      return account;
    },

    async unlock(actor, username) {
      const account = await find(username);
      const cleared = await deps.regulationStore.clear(lockoutKeys(account.username));
      audit.record('admin.user.unlocked', { ...actorFields(actor), account_id: account.id, cleared });
      return { account, cleared };
    },

    lockedUntil(username) {
      return deps.regulator.lockedUntil(lockoutKeys(username));
    },

    async listSessions(username) {
      const account = await find(username);
      return { account, sessions: await deps.userSessions.list(account.id) };
    },

    async signOutEverywhere(actor, username) {
      const account = await find(username);
      const { sessions, grants } = await endAccountAccess(lifecycle, account.id);
      audit.record('admin.user.signed_out', { ...actorFields(actor), account_id: account.id, sessions, grants });
      return { account, sessions, grants };
    },
  };
}
