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
 * - form-action allows the client's post-logout redirect origins (the confirm step redirects there).
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { AccountStore } from '../accounts/account-store.ts';
import { logoutConfirmationPage, logoutPage } from '../views/logout-page.ts';

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
    if (provenByHint(ctx)) {
      ctx.body = logoutPage(form, clientName);
      return;
    }
    const accountId = ctx.oidc.session?.accountId;
    const account = accountId ? await accounts.findById(accountId) : undefined;
    ctx.body = logoutConfirmationPage(form, { ...(clientName ? { clientName } : {}), ...(account ? { username: account.username } : {}) });
  };
}
