/**
 * POST /account/links/remove: the user removes an upstream identity provider from the account
 * page's "Sign-in providers" (linked-providers.ts). Rules:
 * - same-origin posts only (403) from a signed-in session (401), naming a `provider` the account
 *   is linked to (else 404 not_found);
 * - never the last way to sign in: an account without a password whose only link this is keeps
 *   it (409 last_sign_in_method, shown at the top of the Security page);
 * - a removal is audited `account.unlinked` (via the account page); a form gets 303 to
 *   the Security page with the message at its top, a JSON caller 200 `{ provider }`.
 */
import { pageLanguage } from '../i18n/page-language.ts';
import { redirectWithFlash } from './account-flash.ts';
import { SECTION_PATHS } from '../views/account-paths.ts';
import type { Context } from 'koa';
import { hasPassword } from '../accounts/password.ts';
import { AuthError, invalidRequest } from '../errors/auth-error.ts';
import { requireSameOrigin, type OriginDeps } from '../http/same-origin.ts';
import { readBody } from '../http/read-body.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { renderAccount, type AccountViewDeps } from './account-view.ts';
import { requireSession } from '../interactions/signed-in.ts';

export const LINKED_PROVIDERS_REMOVE_PATH = '/account/links/remove';

export type RemoveLinkDeps = AccountViewDeps & OriginDeps & Pick<HandlerServices, 'accountLinks' | 'audit'>;

export function createRemoveLinkHandler(deps: RemoveLinkDeps) {
  return async function removeLink(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const signedIn = await requireSession(ctx, deps);
    const { account } = signedIn;
    const body = await readBody(ctx);
    const provider = body.fields.provider ?? '';
    if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(provider)) throw invalidRequest('Field "provider" is required.');
    const links = await deps.accountLinks.listByAccount(account.id);
    if (!links.some((link) => link.provider === provider)) throw new AuthError(404, 'not_found', 'Your account is not linked to this provider.', { detail: 'not_found.providerLink' });
    if (!hasPassword(account.passwordHash) && links.length === 1) {
      const refusal = new AuthError(409, 'last_sign_in_method', 'This provider is the only way to sign in to your account, so it stays linked. Ask your administrator for a password first.');
      if (body.json) throw refusal;
      await renderAccount(ctx, deps, signedIn, 'security', { error: refusal });
      return;
    }
    await deps.accountLinks.remove(account.id, provider);
    deps.audit.record('account.unlinked', { account_id: account.id, provider, ip: ctx.ip, via: 'account_page' });
    if (body.json) {
      ctx.status = 200;
      ctx.body = { provider };
      return;
    }
    redirectWithFlash(ctx, deps, SECTION_PATHS.security, { kind: 'notice', text: pageLanguage(ctx).t('account.flash.unlinked') });
  };
}
