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
 *   (CSRF); "Sign out everywhere", the second choice, posts the same form with `logout=everywhere`
 *   and says how many other sessions the account has (logout-landing.ts ends them after the
 *   sign-out); "Stay signed in" leaves the session alone;
 * - form-action allows the client's post-logout redirect origins (the confirm step redirects there);
 * - both pages list the apps this session signed in to (by name; the account page's own client is
 *   Gatehouse itself and is not listed), which the sign-out ends too;
 * - after the sign-out, the success page (where logout-landing.ts lands the browser) lists the
 *   apps that back-channel logout told (backchannel-logout.ts), those that did not confirm apart,
 *   leads back to the app that asked, and offers "Sign out everywhere" (logout/sign-out-everywhere.ts)
 *   while the account has other live sessions; what it shows travels in the signed cookie of
 *   logout/signed-out-record.ts.
 */
import type { Context } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { AccountStore } from '../accounts/account-store.ts';
import type { UserSessionStore } from '../sessions/user-sessions.ts';
import { ACCOUNT_CLIENT_ID } from '../clients/account-client.ts';
import { logoutConfirmationPage, logoutPage, signedOutPage } from '../views/logout-page.ts';
import { MAX_LISTED_APPS, readSignedOutRecord } from '../logout/signed-out-record.ts';
import { SIGN_OUT_EVERYWHERE_PATH } from '../logout/sign-out-everywhere.ts';
import { pageLanguage } from '../i18n/page-language.ts';

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

export function logoutSource(deps: { accounts: Pick<AccountStore, 'findById'>; userSessions: Pick<UserSessionStore, 'list'> }) {
  return async function renderLogout(ctx: KoaContextWithOIDC, form: string): Promise<void> {
    const client = ctx.oidc.client;
    if (client) ctx.state.formActionOrigins = (client.postLogoutRedirectUris ?? []).map((u) => new URL(u).origin);
    const clientName = client?.clientName ?? client?.clientId;
    ctx.type = 'html';
    const language = pageLanguage(ctx as unknown as Context);
    const apps = await sessionApps(ctx);
    if (provenByHint(ctx)) {
      ctx.body = logoutPage(form, clientName, apps, language);
      return;
    }
    const accountId = ctx.oidc.session?.accountId;
    const account = accountId ? await deps.accounts.findById(accountId) : undefined;
    // The account's live sessions include this one.
    const everywhere = account ? { others: Math.max(0, (await deps.userSessions.list(account.id)).length - 1) } : undefined;
    ctx.body = logoutConfirmationPage(form, { ...(clientName ? { clientName } : {}), ...(account ? { username: account.username } : {}), ...(everywhere ? { everywhere } : {}), apps, language });
  };
}

/**
 * The success page: the apps the sign-out told, a way back to the app that asked, and "Sign out
 * everywhere" while the account has other live sessions (the record of logout-landing.ts).
 */
export function postLogoutSuccess(deps: { cookieKeys: readonly string[]; userSessions: Pick<UserSessionStore, 'list'>; clock: () => number }) {
  return async function renderSignedOut(ctx: KoaContextWithOIDC): Promise<void> {
    const record = readSignedOutRecord(ctx, deps.cookieKeys, deps.clock());
    const others = record?.everywhere ? (await deps.userSessions.list(record.everywhere.accountId)).length : 0;
    ctx.type = 'html';
    ctx.body = signedOutPage({
      language: pageLanguage(ctx as unknown as Context),
      apps: record?.apps ?? [],
      ...(record?.back ? { back: record.back } : {}),
      ...(record?.everywhere && others > 0 ? { everywhere: { sessions: others, nonce: record.everywhere.nonce, action: SIGN_OUT_EVERYWHERE_PATH } } : {}),
      ...(record?.endedElsewhere !== undefined ? { endedElsewhere: record.endedElsewhere } : {}),
    });
  };
}
