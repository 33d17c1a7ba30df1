/**
 * GET /account and the page every account form answers with. Rules:
 * - without a signed-in session a browser is sent through the login and back
 *   (clients/account-client.ts: 302 to the authorization endpoint); a JSON caller gets 401 login_required;
 * - each visit records this session's browser and last use first, so the list shows it;
 * - sessions come from oidc-provider's rows (sessions/user-sessions.ts) joined with their browser
 *   and last use (sessions/session-meta-store.ts); the one of this request is marked current;
 * - the connected apps are the user's consent records (connected-apps.ts);
 * - `?done=<password|totp|sessions|apps>` shows the confirmation of a redirect-after-post; any other
 *   value is ignored;
 * - a refused form is the page again with the error in its section and the error's status;
 *   a JSON caller gets the usual error body (http/request-context.ts).
 */
import type { Context } from 'koa';
import { responseFormat } from '@gatehouse/http';
import { AuthError } from '../errors/auth-error.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { accountPage, type AccountPageModel, type AccountSection, type AccountSessionView } from '../views/account-page.ts';
import { ACCOUNT_CLIENT_ID, accountClientMetadata, accountSignInUrl } from '../clients/account-client.ts';
import { connectedApps, type ConnectedAppsDeps } from './connected-apps.ts';
import { linkedProviders, type LinkedProvidersDeps } from './linked-providers.ts';
import { recordSessionUse, type SessionUseDeps } from './session-use.ts';
import { preferredFactorView } from './preferred-factor-view.ts';
import { currentSession, notSignedIn, type SignedIn, type SignedInDeps } from './signed-in.ts';

export type AccountViewDeps = SignedInDeps & SessionUseDeps & ConnectedAppsDeps & LinkedProvidersDeps & Pick<HandlerServices, 'config' | 'devices' | 'recoveryCodes' | 'passkeys' | 'userSessions' | 'clients' | 'factorPreferences'>;

const NOTICES: Record<string, string> = {
  password: 'Your password was changed. Your other sessions were signed out.',
  totp: 'Your new authenticator app is set up. Codes from the previous one no longer work, and your other sessions were signed out.',
  sessions: 'Your other sessions were signed out.',
  apps: "The application's access was revoked. Its sign-ins and refresh tokens ended.",
  links: 'The provider was unlinked: it no longer signs you in here.',
  factor: 'Saved. Your next sign-in offers this method first.',
};

const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());
const wantsJson = (ctx: Context): boolean => responseFormat(ctx) === 'json';

async function sessionsOf(deps: AccountViewDeps, signedIn: SignedIn): Promise<AccountSessionView[]> {
  const sessions = await deps.userSessions.list(signedIn.account.id);
  const meta = new Map((await deps.sessionMeta.find(sessions.flatMap((s) => (s.uid ? [s.uid] : [])))).map((m) => [m.sessionUid, m]));
  const names = new Map<string, string>([[ACCOUNT_CLIENT_ID, accountClientMetadata(deps.config.issuer).client_name]]);
  for (const clientId of new Set(sessions.flatMap((s) => s.clients.map((c) => c.clientId)))) {
    if (!names.has(clientId)) names.set(clientId, (await deps.clients.find(clientId))?.name ?? clientId);
  }
  const views = sessions.map((s) => {
    const seen = s.uid ? meta.get(s.uid) : undefined;
    return {
      browser: seen?.browser ?? 'Unknown browser',
      signedInAt: s.signedInAt,
      lastUsedAt: seen ? Math.max(seen.lastUsedAt, s.lastUsedAt ?? 0) : s.lastUsedAt,
      current: s.id === signedIn.sessionId,
      clients: s.clients.map((c) => names.get(c.clientId) ?? c.clientId),
    };
  });
  // This browser first, then the most recently used.
  return views.sort((a, b) => Number(b.current) - Number(a.current) || (b.lastUsedAt ?? 0) - (a.lastUsedAt ?? 0));
}

export interface AccountRenderOptions {
  status?: number;
  notice?: string;
  error?: { section: AccountSection; error: AuthError };
  totpEnrollment?: AccountPageModel['totpEnrollment'];
  /** A refused choice of the preferred factor (preferred-factor.ts), shown in its section. */
  preferredFactorError?: AuthError;
}

/** Answers with the account page of `signedIn` (HTML). */
export async function renderAccount(ctx: Context, deps: AccountViewDeps, signedIn: SignedIn, options: AccountRenderOptions = {}): Promise<void> {
  const { account } = signedIn;
  const [devices, recoveryCodesRemaining, passkeys, sessions, apps, links, preferredFactor] = await Promise.all([
    deps.devices.listByAccount(account.id),
    deps.recoveryCodes.remaining(account.id),
    deps.passkeys.listByAccount(account.id),
    sessionsOf(deps, signedIn),
    connectedApps(deps, account.id),
    linkedProviders(deps, account.id),
    preferredFactorView(deps, account, options.preferredFactorError),
  ]);
  const error = options.error;
  if (error) for (const [name, value] of Object.entries(error.error.headers)) ctx.set(name, value);
  ctx.status = options.status ?? error?.error.status ?? options.preferredFactorError?.status ?? 200;
  ctx.type = 'html';
  ctx.body = accountPage({
    profile: { username: account.username, email: account.email, name: account.name, groups: account.groups },
    totpEnrolled: account.totpEnrolled,
    devices,
    recoveryCodesRemaining,
    passkeys,
    sessions,
    apps,
    links,
    preferredFactor,
    ...(options.notice ? { notice: options.notice } : {}),
    ...(error ? { error: { section: error.section, code: error.error.code, message: error.error.message } } : {}),
    ...(options.totpEnrollment ? { totpEnrollment: options.totpEnrollment } : {}),
  });
}

export function createAccountPageHandler(deps: AccountViewDeps) {
  return async function showAccount(ctx: Context): Promise<void> {
    const signedIn = await currentSession(ctx, deps);
    if (!signedIn) {
      if (wantsJson(ctx)) throw notSignedIn();
      ctx.redirect(accountSignInUrl(deps.config.issuer));
      return;
    }
    await recordSessionUse(ctx, deps, { uid: signedIn.sessionUid, accountId: signedIn.account.id });
    if (wantsJson(ctx)) {
      const { account } = signedIn;
      const [devices, remaining, passkeys, sessions, apps] = await Promise.all([
        deps.devices.listByAccount(account.id),
        deps.recoveryCodes.remaining(account.id),
        deps.passkeys.listByAccount(account.id),
        sessionsOf(deps, signedIn),
        connectedApps(deps, account.id),
      ]);
      ctx.status = 200;
      ctx.body = {
        username: account.username,
        email: account.email,
        name: account.name,
        groups: account.groups,
        totp_enrolled: account.totpEnrolled,
        devices: devices.map((d) => ({ id: d.id, name: d.name, created_at: iso(d.createdAt), last_used_at: iso(d.lastUsedAt) })),
        recovery_codes_remaining: remaining,
        passkeys: passkeys.map((p) => ({ id: p.id, name: p.name, created_at: iso(p.createdAt), last_used_at: iso(p.lastUsedAt) })),
        sessions: sessions.map((s) => ({ browser: s.browser, signed_in_at: iso(s.signedInAt), last_used_at: iso(s.lastUsedAt), current: s.current, clients: s.clients })),
        connected_apps: apps.map((a) => ({ client_id: a.clientId, name: a.name, scopes: a.scopes, granted_at: iso(a.grantedAt), updated_at: iso(a.updatedAt) })),
      };
      return;
    }
    const done = typeof ctx.query.done === 'string' ? ctx.query.done : '';
    await renderAccount(ctx, deps, signedIn, Object.hasOwn(NOTICES, done) ? { notice: NOTICES[done]! } : {});
  };
}

/**
 * The redirect URI of the account page's sign-in: on to /account, or, when the authorization
 * came back with an error (the user gave up, the account is disabled), a page saying so
 * instead of starting the sign-in again in a loop.
 */
export function accountCallback(ctx: Context): void {
  const error = typeof ctx.query.error === 'string' ? ctx.query.error : undefined;
  if (error) {
    throw new AuthError(400, 'login_required', 'The sign-in to your account page did not complete. Open /account to try again.');
  }
  ctx.status = 303;
  ctx.redirect('/account');
}
