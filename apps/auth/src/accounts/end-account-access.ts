/**
 * Ending, at once, everything an account holds: the one place every lockdown goes through
 * (`user disable`, `passwd`, `reset-mfa`, `remove`, `signout-all` from authctl or the admin API,
 * a password change or TOTP re-enrolment on the account page, a password-reset link). Rules:
 * - every SSO session of the account ends, except `keepSessionId` (the browser that made the
 *   change on the account page), and every grant that session does not hold
 *   (sessions/user-sessions.ts): a browser must sign in again (authorize answers the login page),
 *   refresh tokens and codes answer invalid_grant, the grants' JWT access tokens are inactive at
 *   introspection, and one `session-revoked` event per grant reaches resource servers;
 * - the session rows are deleted, not hidden: an account that comes back (`user enable`) gets no
 *   session back, only the right to sign in;
 * - the account page's metadata of the ended sessions goes with them;
 * - with `revokeSubject` (disable, remove: nothing of the account is kept), every access token
 *   of the subject issued up to now is revoked by subject too (revokeEverythingOf below: an
 *   `account-disabled` event), which also reaches tokens whose grant
 *   row was already gone;
 * - the clients of every ended session are told by back-channel logout (sessions/backchannel-logout.ts)
 *   before this returns (first attempts; failures are retried in the background);
 * - one session alone can end the same way (endOneSession): its row, the grants only it holds,
 *   its metadata and its clients' back-channel logout.
 */
import type { EndedSessions, UserSessionStore } from '../sessions/user-sessions.ts';
import type { SessionMetaStore } from '../sessions/session-meta-store.ts';
import type { RevocationStore } from '../revocation/revocation-store.ts';
import type { BackchannelLogout } from '../sessions/backchannel-logout.ts';

export interface EndAccountAccessDeps {
  userSessions: Pick<UserSessionStore, 'endAll' | 'endOthers'>;
  sessionMeta: Pick<SessionMetaStore, 'remove'>;
  revocations: Pick<RevocationStore, 'revokeSubject'>;
  /** Tells the ended sessions' clients (back-channel logout); the server and authctl always give it. */
  backchannelLogout?: Pick<BackchannelLogout, 'sessionsEnded'>;
  clock: () => number;
  /** The longest access-token lifetime, seconds (config.accessTokenTtl). */
  accessTokenTtl: number;
}

export interface EndAccountAccessOptions {
  /** The session to keep (the account page's own browser); absent: every session ends. */
  keepSessionId?: string | undefined;
  /** Also revoke every access token of the subject issued up to now (disable, remove). */
  revokeSubject?: boolean;
}

/** Ends the account's sessions, grants and refresh tokens; says what was ended. */
export async function endAccountAccess(deps: EndAccountAccessDeps, accountId: string, options: EndAccountAccessOptions = {}): Promise<EndedSessions> {
  if (options.revokeSubject) await revokeEverythingOf(deps, accountId);
  const ended = options.keepSessionId === undefined ? await deps.userSessions.endAll(accountId) : await deps.userSessions.endOthers(accountId, options.keepSessionId);
  await deps.sessionMeta.remove(ended.sessionUids);
  await deps.backchannelLogout?.sessionsEnded(ended.ended);
  return ended;
}

/**
 * Ends every access token of `sub` issued up to now. `iat` has one-second precision, so a token
 * issued in the current second counts as issued before (the cut-off is now + 1 ms).
 */
function revokeEverythingOf(deps: { revocations: Pick<RevocationStore, 'revokeSubject'>; clock: () => number; accessTokenTtl: number }, sub: string): Promise<void> {
  const now = deps.clock();
  return deps.revocations.revokeSubject(sub, now + 1, now + (deps.accessTokenTtl + 1) * 1000);
}

/**
 * Ends one session of the account (the account page's "Sign out" of one session): its row, the
 * grants only it holds, its metadata, and tells its clients by back-channel logout; undefined
 * when the account has no session with that uid.
 */
export async function endOneSession(
  deps: Omit<EndAccountAccessDeps, 'userSessions' | 'revocations' | 'clock' | 'accessTokenTtl'> & { userSessions: Pick<UserSessionStore, 'endOne'> },
  accountId: string,
  sessionUid: string,
): Promise<EndedSessions | undefined> {
  const ended = await deps.userSessions.endOne(accountId, sessionUid);
  if (!ended) return undefined;
  await deps.sessionMeta.remove(ended.sessionUids);
  await deps.backchannelLogout?.sessionsEnded(ended.ended);
  return ended;
}
