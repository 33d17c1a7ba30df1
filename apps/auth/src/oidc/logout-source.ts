/**
 * The page of RP-initiated logout when the browser has an SSO session (oidc-provider's
 * logoutSource; without a session the library posts its form at once, oidc/form-post.ts). Rules
 * (OpenID Connect RP-Initiated Logout 1.0 §2: the OP must ask the user unless an ID token of this
 * session proves the request):
 * - the request is proven when oidc-provider validated its `id_token_hint` (our signature, the
 *   client's audience; it may be expired) and the hint names the session's user (`sub`) and, when
 *   it carries `sid`, this session with that client: the page signs out at once, as before
 *   (views/logout-page.ts logoutPage, its same-origin script presses "Sign out");
 * - anything else (no hint, a `client_id` alone, another user's or another session's hint) gets a
 *   real confirmation page without script: "Sign out" posts the library's form with its xsrf token
 *   (CSRF), "Stay signed in" leaves the session alone;
 * - form-action allows the client's post-logout redirect origins (the confirm step redirects there);
 * - both pages list the apps this session signed in to (by name; the account page's own client is
 *   Gatehouse itself and is not listed), which the sign-out ends too;
 * - after the sign-out, the success page (when the app named no post_logout_redirect_uri) lists
 *   the apps that back-channel logout told (backchannel-logout.ts), those that did not confirm
 *   apart; the list travels from the confirm step in a signed, httpOnly cookie of that page's path
 *   that lives a minute and is read once.
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { AccountStore } from '../accounts/account-store.ts';
import type { NotifiedClient } from '../sessions/backchannel-logout.ts';
import { ACCOUNT_CLIENT_ID } from '../clients/account-client.ts';
import { logoutConfirmationPage, logoutPage, signedOutPage, type SignedOutApp } from '../views/logout-page.ts';

/** The cookie carrying the signed-out apps from the confirm step to the success page. */
export const SIGNED_OUT_COOKIE = 'gh_auth_signed_out';
const SIGNED_OUT_COOKIE_MS = 60_000;
const MAX_LISTED_APPS = 20;

/** The names of the apps the session signed in to, the account page's own client left out. */
async function sessionApps(ctx: KoaContextWithOIDC): Promise<string[]> {
  const clientIds = Object.keys(ctx.oidc.session?.authorizations ?? {}).filter((clientId) => clientId !== ACCOUNT_CLIENT_ID);
  const clients = await Promise.all(clientIds.slice(0, MAX_LISTED_APPS).map((clientId) => ctx.oidc.provider.Client.find(clientId).catch(() => undefined)));
  return clients.flatMap((client, i) => [client?.clientName ?? clientIds[i]!]);
}

interface IdTokenHint {
  payload?: { sub?: unknown; sid?: unknown; aud?: unknown };
}

/** Whether a validated id_token_hint of this session's user (and session) came with the request. */
function provenByHint(ctx: KoaContextWithOIDC): boolean {
  const hint = (ctx.oidc.entities as { IdTokenHint?: IdTokenHint }).IdTokenHint?.payload;
  const session = ctx.oidc.session;
  if (!hint || !session?.accountId || hint.sub !== session.accountId) return false;
  if (hint.sid === undefined) return true;
  return typeof hint.aud === 'string' && hint.sid === session.sidFor(hint.aud);
}

export function logoutSource(accounts: Pick<AccountStore, 'findById'>) {
  return async function renderLogout(ctx: KoaContextWithOIDC, form: string): Promise<void> {
    const client = ctx.oidc.client;
    if (client) ctx.state.formActionOrigins = (client.postLogoutRedirectUris ?? []).map((u) => new URL(u).origin);
    const clientName = client?.clientName ?? client?.clientId;
    ctx.type = 'html';
    const apps = await sessionApps(ctx);
    if (provenByHint(ctx)) {
      ctx.body = logoutPage(form, clientName, apps);
      return;
    }
    const accountId = ctx.oidc.session?.accountId;
    const account = accountId ? await accounts.findById(accountId) : undefined;
    ctx.body = logoutConfirmationPage(form, { ...(clientName ? { clientName } : {}), ...(account ? { username: account.username } : {}), apps });
  };
}

/** At the end of the confirm step: keeps the apps back-channel logout told for the success page. */
export function rememberSignedOutApps(ctx: KoaContextWithOIDC, successPath: string): void {
  const told = (ctx.state as { signedOutClients?: NotifiedClient[] }).signedOutClients ?? [];
  const apps: SignedOutApp[] = told.filter((client) => client.clientId !== ACCOUNT_CLIENT_ID).slice(0, MAX_LISTED_APPS).map((client) => ({ name: client.clientName, confirmed: client.delivered }));
  if (apps.length === 0) return;
  ctx.cookies.set(SIGNED_OUT_COOKIE, Buffer.from(JSON.stringify(apps)).toString('base64url'), {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    path: successPath,
    maxAge: SIGNED_OUT_COOKIE_MS,
  });
}

/** The success page, listing the apps remembered by the confirm step (once). */
export async function postLogoutSuccess(ctx: KoaContextWithOIDC): Promise<void> {
  const apps = readSignedOutApps(ctx.cookies.get(SIGNED_OUT_COOKIE, { signed: true }));
  if (apps.length > 0) ctx.cookies.set(SIGNED_OUT_COOKIE, null, { signed: true, httpOnly: true, sameSite: 'lax', path: ctx.path });
  ctx.type = 'html';
  ctx.body = signedOutPage(apps);
}

function readSignedOutApps(value: string | undefined): SignedOutApp[] {
  if (!value) return [];
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed)) return [];
    return parsed.flatMap((app: { name?: unknown; confirmed?: unknown }) => (typeof app?.name === 'string' && typeof app.confirmed === 'boolean' ? [{ name: app.name, confirmed: app.confirmed }] : []));
  } catch {
    return [];
  }
}
