/**
 * GET /account and the page every account form answers with. Rules:
 * - without a signed-in session a browser is sent through the login and back
 *   (clients/account-client.ts: 302 to the authorization endpoint); a JSON caller gets 401 login_required;
 * - each visit records this session's browser and last use first, so the list shows it;
 * - sessions come from oidc-provider's rows (sessions/user-sessions.ts) joined with their browser
 *   and last use (sessions/session-meta-store.ts); the one of this request is marked current;
 * - the connected apps are the user's consent records (connected-apps.ts);
 * - each section is a page of its own (views/account-paths.ts); the message of the last action is
 *   at its top: the flash of a post/redirect/get (account-flash.ts), or the error of a refused
 *   form, which answers the section page again with the error's status; a JSON caller gets the
 *   usual error body (http/request-context.ts);
 * - every page shows "Back to <app>" when the user came from an app (return-target.ts);
 * - the sign-in callback only follows a path under /account (accountReturnPath), anything
 *   else goes to /account.
 */
import { pageLanguage } from '../i18n/page-language.ts';
import type { Context } from 'koa';
import { responseFormat } from '@gatehouse/http';
import { AuthError } from '../errors/auth-error.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { appsPage, profilePage, securityPage, sessionsPage, type AccountFrame, type AccountSessionView, type SecurityModel } from '../views/account-page.ts';
import { SECTION_PATHS, type AccountSection } from '../views/account-paths.ts';
import { takeAccountFlash } from './account-flash.ts';
import { returnTarget } from './return-target.ts';
import { accountReturnPath } from './account-sign-in.ts';
import { networkOf } from './network.ts';
import { UNKNOWN_BROWSER } from '../views/browser-label.ts';
import { ACCOUNT_CLIENT_ID, accountClientMetadata } from '../clients/account-client.ts';
import { accountSignInUrl } from './account-sign-in.ts';
import { connectedApps, type ConnectedAppsDeps } from './connected-apps.ts';
import { linkedProviders, type LinkedProvidersDeps } from './linked-providers.ts';
import { recordSessionUse, type SessionUseDeps } from './session-use.ts';
import { preferredFactorView } from './preferred-factor-view.ts';
import { currentSession, notSignedIn, type SignedIn, type SignedInDeps } from '../interactions/signed-in.ts';

export type AccountViewDeps = SignedInDeps & SessionUseDeps & ConnectedAppsDeps & LinkedProvidersDeps & Pick<HandlerServices, 'config' | 'clock' | 'devices' | 'recoveryCodes' | 'passkeys' | 'userSessions' | 'clients' | 'factorPreferences'>;

const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());
const wantsJson = (ctx: Context): boolean => responseFormat(ctx) === 'json';

/** The account's sessions as the Sessions page lists them: this one first, then the most recently used. */
export async function sessionsOf(deps: AccountViewDeps, signedIn: SignedIn): Promise<AccountSessionView[]> {
  const sessions = await deps.userSessions.list(signedIn.account.id);
  const meta = new Map((await deps.sessionMeta.find(sessions.flatMap((s) => (s.uid ? [s.uid] : [])))).map((m) => [m.sessionUid, m]));
  const names = new Map<string, string>([[ACCOUNT_CLIENT_ID, accountClientMetadata(deps.config.issuer).client_name]]);
  for (const clientId of new Set(sessions.flatMap((s) => s.clients.map((c) => c.clientId)))) {
    if (!names.has(clientId)) names.set(clientId, (await deps.clients.find(clientId))?.name ?? clientId);
  }
  const views = sessions.map((s) => {
    const seen = s.uid ? meta.get(s.uid) : undefined;
    return {
      uid: s.uid,
      browser: seen?.browser ?? UNKNOWN_BROWSER,
      ip: seen?.ip,
      network: seen?.ip ? networkOf(seen.ip) : undefined,
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
  /** A refused form: its message at the top of the section, with its status and headers. */
  error?: AuthError;
  totpEnrollment?: SecurityModel['totpEnrollment'];
}

/** The frame of every account page: section, user, message, the way back to the app. */
export async function accountFrame(ctx: Context, deps: AccountViewDeps, signedIn: SignedIn, section: AccountSection, error?: AuthError): Promise<AccountFrame> {
  const flash = takeAccountFlash(ctx, deps);
  const language = pageLanguage(ctx);
  const message = error ? { kind: 'error' as const, text: language.errorText(error), code: error.code } : flash;
  return { section, username: signedIn.account.username, message, back: await returnTarget(ctx, deps), language, now: deps.clock() };
}

async function sectionBody(deps: AccountViewDeps, signedIn: SignedIn, frame: AccountFrame, options: AccountRenderOptions): Promise<string> {
  const { account } = signedIn;
  switch (frame.section) {
    case 'profile':
      return profilePage(frame, { username: account.username, email: account.email, name: account.name, groups: account.groups });
    case 'security': {
      const [devices, recoveryCodesRemaining, passkeys, links, preferredFactor] = await Promise.all([
        deps.devices.listByAccount(account.id),
        deps.recoveryCodes.remaining(account.id),
        deps.passkeys.listByAccount(account.id),
        linkedProviders(deps, account.id),
        preferredFactorView(deps, account),
      ]);
      const passkeyReauthUrl = accountSignInUrl(deps.config.issuer, { returnTo: `${SECTION_PATHS.security}#passkeys`, maxAge: deps.config.account.reauthMaxAge });
      return securityPage(frame, { totpEnrolled: account.totpEnrolled, devices, recoveryCodesRemaining, passkeys, passkeyReauthUrl, links, preferredFactor, totpEnrollment: options.totpEnrollment });
    }
    case 'sessions':
      return sessionsPage(frame, await sessionsOf(deps, signedIn));
    case 'apps':
      return appsPage(frame, await connectedApps(deps, account.id));
  }
}

/** Answers with the section page of `signedIn` (HTML). */
export async function renderAccount(ctx: Context, deps: AccountViewDeps, signedIn: SignedIn, section: AccountSection, options: AccountRenderOptions = {}): Promise<void> {
  const frame = await accountFrame(ctx, deps, signedIn, section, options.error);
  const body = await sectionBody(deps, signedIn, frame, options);
  if (options.error) for (const [name, value] of Object.entries(options.error.headers)) ctx.set(name, value);
  ctx.status = options.status ?? options.error?.status ?? 200;
  ctx.type = 'html';
  ctx.body = body;
}

/**
 * The signed-in session of a section page visit, or undefined after sending the browser through
 * the login (a page visit) or refusing (a JSON caller: 401). The `client_id` + `return_to` of the
 * visit are kept before the login, so the way back survives it.
 */
export async function pageSession(ctx: Context, deps: AccountViewDeps, returnPath: string): Promise<SignedIn | undefined> {
  const signedIn = await currentSession(ctx, deps);
  if (!signedIn) {
    if (wantsJson(ctx)) throw notSignedIn();
    await returnTarget(ctx, deps);
    ctx.redirect(accountSignInUrl(deps.config.issuer, { returnTo: returnPath }));
    return undefined;
  }
  await recordSessionUse(ctx, deps, { uid: signedIn.sessionUid, accountId: signedIn.account.id });
  return signedIn;
}

export function createSectionHandler(deps: AccountViewDeps, section: Exclude<AccountSection, 'profile'>) {
  return async function showSection(ctx: Context): Promise<void> {
    const signedIn = await pageSession(ctx, deps, SECTION_PATHS[section]);
    if (signedIn) await renderAccount(ctx, deps, signedIn, section);
  };
}

export function createAccountPageHandler(deps: AccountViewDeps) {
  return async function showAccount(ctx: Context): Promise<void> {
    const signedIn = await pageSession(ctx, deps, SECTION_PATHS.profile);
    if (!signedIn) return;
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
        sessions: sessions.map((s) => ({ browser: s.browser, ip: s.ip ?? null, network: s.network ?? null, signed_in_at: iso(s.signedInAt), last_used_at: iso(s.lastUsedAt), current: s.current, clients: s.clients })),
        connected_apps: apps.map((a) => ({ client_id: a.clientId, name: a.name, scopes: a.scopes, granted_at: iso(a.grantedAt), updated_at: iso(a.updatedAt) })),
      };
      return;
    }
    await renderAccount(ctx, deps, signedIn, 'profile');
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
    throw new AuthError(400, 'login_required', 'The sign-in to your account page did not complete. Open /account to try again.', { detail: 'login_required.accountSignInIncomplete' });
  }
  ctx.status = 303;
  ctx.redirect(accountReturnPath(ctx.query.state));
}
