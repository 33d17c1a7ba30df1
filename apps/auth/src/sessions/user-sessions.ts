/**
 * A user's SSO sessions and grants, read and ended by an operator (user-admin.ts). Rules:
 * - it works on oidc-provider's own rows (oidc/adapter.ts: table `oidc_payloads`), so a session
 *   or grant it deletes is gone for the provider exactly as after a logout or a revocation;
 * - an expired row is neither listed nor counted;
 * - ending a grant first records its revocation (onGrantRevoked: the grant's JWT access tokens
 *   stop being active at introspection and a `session-revoked` event reaches resource servers),
 *   then deletes the grant and every token row that carries it (refresh tokens, codes);
 * - sessions are deleted last, so a failure half-way leaves the user signed in rather than
 *   holding tokens of a session that no longer shows;
 * - grants are listed with their client and scopes (OpenID scopes and per-resource scopes);
 *   ending one grant (endGrant) revokes and deletes it like endAll does, and only when it belongs
 *   to the account; the sessions stay (the next authorization for that client builds a new grant).
 * - endOthers keeps one session and the grants it holds (the account page's own browser), and
 *   ends everything else of the account, grants held by no session included (refresh tokens
 *   that outlived their session).
 * - what was ended names, per session, its account and its clients with their `sid`, for the
 *   back-channel logout (backchannel-logout.ts); expiredSessions() names the same for the sessions
 *   the purge is about to delete.
 */
import type { Kysely } from 'kysely';
import type { AuthSchema } from '../storage/schema.ts';

export interface UserSession {
  /** The session's id (the value behind the session cookie: never shown, admin/json/session-json.ts). */
  id: string;
  /** oidc-provider's stable id of the session (kept while the cookie's id rotates). */
  uid: string | undefined;
  /** Epoch ms of the sign-in that started it. */
  signedInAt: number | undefined;
  /** Epoch ms of its last use: the provider re-saves a session on every request that shows it. */
  lastUsedAt: number | undefined;
  /** Epoch ms when it ends if unused. */
  expiresAt: number | undefined;
  /** The clients it signed in to, with their grants. */
  clients: { clientId: string; grantId: string | undefined }[];
}

export interface UserGrant {
  id: string;
  clientId: string;
  /** The OpenID scopes granted (openid, profile, ...). */
  openidScopes: string[];
  /** Per resource indicator (the API, the admin API), the scopes granted. */
  resources: Record<string, string[]>;
  /** Epoch ms of its creation, and when it ends. */
  createdAt: number | undefined;
  expiresAt: number | undefined;
}

export interface UserSessionStore {
  /** The account's live sessions, most recently used first. */
  list(accountId: string): Promise<UserSession[]>;
  /** Ends every session and grant of the account; says how many of each. */
  endAll(accountId: string): Promise<EndedSessions>;
  /**
   * Ends every session of the account but `keepSessionId`, and every grant of the account that
   * session does not hold (the account page's "sign out other sessions", a password change).
   */
  endOthers(accountId: string, keepSessionId: string): Promise<EndedSessions>;
  /**
   * Ends the one session of the account whose uid is `sessionUid`, and the grants it holds that
   * no other session of the account holds; undefined when the account has no such session.
   */
  endOne(accountId: string, sessionUid: string): Promise<EndedSessions | undefined>;
  /** The account's live grants, newest first. */
  listGrants(accountId: string): Promise<UserGrant[]>;
  /** Ends one grant of the account; false when it has no live grant with that id. */
  endGrant(accountId: string, grantId: string): Promise<boolean>;
  /** Sessions of any account whose expiry has passed (not deleted yet), at most `limit`. */
  expiredSessions(limit: number): Promise<EndedSession[]>;
  /** How many signed-in SSO sessions are live now, of every account (the admin console's dashboard). */
  countLive(): Promise<number>;
}

/** One ended SSO session: its account and the clients it signed in to, with the session id each was given (`sid`). */
export interface EndedSession {
  accountId: string;
  clients: { clientId: string; sid: string | undefined }[];
}

/** What was ended (live grants counted), and the uids of the ended sessions (their rows elsewhere go with them). */
export interface EndedSessions {
  sessions: number;
  grants: number;
  sessionUids: string[];
  ended: EndedSession[];
}

export interface UserSessionDeps {
  db: Kysely<AuthSchema>;
  clock: () => number;
  /** The session lifetime, seconds (config.sessionTtl): a session's last use is its expiry minus this. */
  sessionTtl: number;
  onGrantRevoked: (grantId: string) => Promise<void>;
}

interface SessionPayload {
  uid?: unknown;
  accountId?: unknown;
  loginTs?: unknown;
  authorizations?: Record<string, { grantId?: unknown; sid?: unknown } | undefined>;
  // Grant rows.
  clientId?: unknown;
  iat?: unknown;
  openid?: { scope?: unknown };
  resources?: Record<string, unknown>;
}

const words = (value: unknown): string[] => (typeof value === 'string' ? value.split(' ').filter(Boolean) : []);

export function createUserSessionStore(deps: UserSessionDeps): UserSessionStore {
  const { db, clock } = deps;

  /** Live rows of a model whose payload names the account (the JSON is filtered again after parsing). */
  async function rowsOf(model: 'Session' | 'Grant', accountId: string) {
    let query = db.selectFrom('oidc_payloads').select(['id', 'payload', 'expires_at']).where('model', '=', model);
    // Account ids are UUIDs: narrow in SQL when the id needs no LIKE escaping.
    if (/^[A-Za-z0-9-]+$/.test(accountId)) query = query.where('payload', 'like', `%"accountId":"${accountId}"%`);
    const rows = await query.execute();
    const now = clock();
    return rows
      .filter((row) => row.expires_at === null || Number(row.expires_at) > now)
      .map((row) => ({ id: row.id, expiresAt: row.expires_at === null ? undefined : Number(row.expires_at), payload: JSON.parse(row.payload) as SessionPayload }))
      .filter((row) => row.payload.accountId === accountId);
  }

  const endedSession = (accountId: string, payload: SessionPayload): EndedSession => ({
    accountId,
    clients: Object.entries(payload.authorizations ?? {}).map(([clientId, authorization]) => ({
      clientId,
      sid: typeof authorization?.sid === 'string' ? authorization.sid : undefined,
    })),
  });

  const grantsOf = (payload: SessionPayload): string[] =>
    Object.values(payload.authorizations ?? {}).flatMap((authorization) => (typeof authorization?.grantId === 'string' ? [authorization.grantId] : []));

  async function endGrants(grantIds: Iterable<string>): Promise<void> {
    for (const grantId of grantIds) {
      await deps.onGrantRevoked(grantId);
      await db.deleteFrom('oidc_payloads').where('grant_id', '=', grantId).execute();
      await db.deleteFrom('oidc_payloads').where('model', '=', 'Grant').where('id', '=', grantId).execute();
    }
  }

  async function end(accountId: string, keepSessionId: string | undefined): Promise<EndedSessions> {
    const all = await rowsOf('Session', accountId);
    const sessions = all.filter((row) => row.id !== keepSessionId);
    const kept = new Set(all.filter((row) => row.id === keepSessionId).flatMap((row) => grantsOf(row.payload)));
    const live = (await rowsOf('Grant', accountId)).map((row) => row.id).filter((grantId) => !kept.has(grantId));
    // Sessions may still name a grant already ended (endGrant): revoked again, not counted.
    const grantIds = new Set(live);
    for (const session of sessions) for (const grantId of grantsOf(session.payload)) if (!kept.has(grantId)) grantIds.add(grantId);
    await endGrants(grantIds);
    if (sessions.length > 0) {
      await db.deleteFrom('oidc_payloads').where('model', '=', 'Session').where('id', 'in', sessions.map((s) => s.id)).execute();
    }
    const sessionUids = sessions.flatMap((s) => (typeof s.payload.uid === 'string' ? [s.payload.uid] : []));
    return { sessions: sessions.length, grants: live.length, sessionUids, ended: sessions.map((s) => endedSession(accountId, s.payload)) };
  }

  return {
    async list(accountId) {
      const sessions = (await rowsOf('Session', accountId)).map(({ id, expiresAt, payload }) => ({
        id,
        uid: typeof payload.uid === 'string' ? payload.uid : undefined,
        signedInAt: typeof payload.loginTs === 'number' ? payload.loginTs * 1000 : undefined,
        lastUsedAt: expiresAt === undefined ? undefined : expiresAt - deps.sessionTtl * 1000,
        expiresAt,
        clients: Object.entries(payload.authorizations ?? {}).map(([clientId, authorization]) => ({
          clientId,
          grantId: typeof authorization?.grantId === 'string' ? authorization.grantId : undefined,
        })),
      }));
      return sessions.sort((a, b) => (b.lastUsedAt ?? 0) - (a.lastUsedAt ?? 0));
    },

    endAll: (accountId) => end(accountId, undefined),
    endOthers: (accountId, keepSessionId) => end(accountId, keepSessionId),

    async endOne(accountId, sessionUid) {
      const all = await rowsOf('Session', accountId);
      const target = all.find((row) => row.payload.uid === sessionUid);
      if (!target) return undefined;
      const heldElsewhere = new Set(all.filter((row) => row !== target).flatMap((row) => grantsOf(row.payload)));
      const grantIds = new Set(grantsOf(target.payload).filter((grantId) => !heldElsewhere.has(grantId)));
      const live = new Set((await rowsOf('Grant', accountId)).map((row) => row.id));
      await endGrants(grantIds);
      await db.deleteFrom('oidc_payloads').where('model', '=', 'Session').where('id', '=', target.id).execute();
      return { sessions: 1, grants: [...grantIds].filter((grantId) => live.has(grantId)).length, sessionUids: [sessionUid], ended: [endedSession(accountId, target.payload)] };
    },

    async listGrants(accountId) {
      const grants = (await rowsOf('Grant', accountId)).map(({ id, expiresAt, payload }) => ({
        id,
        clientId: typeof payload.clientId === 'string' ? payload.clientId : '',
        openidScopes: words(payload.openid?.scope),
        resources: Object.fromEntries(Object.entries(payload.resources ?? {}).map(([indicator, scope]) => [indicator, words(scope)])),
        createdAt: typeof payload.iat === 'number' ? payload.iat * 1000 : undefined,
        expiresAt,
      }));
      return grants.sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0) || a.id.localeCompare(b.id));
    },

    async countLive() {
      const row = await db
        .selectFrom('oidc_payloads')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('model', '=', 'Session')
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', clock())]))
        .where('payload', 'like', '%"accountId":"%')
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async expiredSessions(limit) {
      const rows = await db
        .selectFrom('oidc_payloads')
        .select(['payload'])
        .where('model', '=', 'Session')
        .where('expires_at', '<=', clock())
        .limit(limit)
        .execute();
      return rows
        .map((row) => JSON.parse(row.payload) as SessionPayload)
        .flatMap((payload) => (typeof payload.accountId === 'string' && payload.authorizations ? [endedSession(payload.accountId, payload)] : []));
    },

    async endGrant(accountId, grantId) {
      const owned = (await rowsOf('Grant', accountId)).some((row) => row.id === grantId);
      if (!owned) return false;
      await endGrants([grantId]);
      return true;
    },
  };
}
