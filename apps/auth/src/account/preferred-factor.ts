/**
 * POST /account/preferred-factor: the signed-in user chooses the second factor offered first at
 * sign-in. Rules:
 * - same-origin posts only (403), a signed-in session (401 login_required);
 * - `factor` is `last_used` (the one that passed last), `totp`, `push` or `passkey`; anything else
 *   is 400 invalid_request; a method the account does not have (no TOTP, no device, no passkey)
 *   is 400 factor_not_enrolled; a refusal shows the Security page again with the message at its top;
 * - it changes nothing else: every method stays available behind "Try another method";
 * - audited `account.preferred_factor_set`; a form gets 303 to the Security page with the
 *   message at its top, a JSON caller 200 `{ preferred_factor }` (null for last used).
 */
import { pageLanguage } from '../i18n/page-language.ts';
import type { Context } from 'koa';
import { isPreferableFactor } from '../accounts/factor-preference-store.ts';
import { AuthError, invalidRequest } from '../errors/auth-error.ts';
import { formPage } from '../http/form-page.ts';
import { readBody } from '../http/read-body.ts';
import { requireSameOrigin, type OriginDeps } from '../http/same-origin.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { renderAccount, type AccountViewDeps } from './account-view.ts';
import { preferableFactors } from './preferred-factor-view.ts';
import { requireSession } from '../interactions/signed-in.ts';
import { redirectWithFlash } from './account-flash.ts';
import { SECTION_PATHS } from '../views/account-paths.ts';

export type PreferredFactorDeps = AccountViewDeps & OriginDeps & Pick<HandlerServices, 'factorPreferences' | 'devices' | 'passkeys' | 'audit'>;

export function createPreferredFactorHandler(deps: PreferredFactorDeps) {
  return async function setPreferredFactor(ctx: Context): Promise<void> {
    requireSameOrigin(ctx, deps);
    const signedIn = await requireSession(ctx, deps);
    const { account } = signedIn;
    await formPage(ctx, {
      read: () => readBody(ctx),
      async run(body) {
        const choice = body.fields.factor ?? '';
        if (choice !== 'last_used' && !isPreferableFactor(choice)) throw invalidRequest('Choose one of the listed sign-in methods.', 'invalid_request.preferredFactor');
        if (choice !== 'last_used' && !(await preferableFactors(deps, account)).includes(choice)) {
          throw new AuthError(400, 'factor_not_enrolled', 'Your account does not have this method. Add it on this page first, or choose another one.', { detail: 'factor_not_enrolled.preferredFactor' });
        }
        await deps.factorPreferences.setPreferred(account.id, choice === 'last_used' ? null : choice);
        deps.audit.record('account.preferred_factor_set', { account_id: account.id, ip: ctx.ip, factor: choice });
        if (body.json) {
          ctx.status = 200;
          ctx.body = { preferred_factor: choice === 'last_used' ? null : choice };
          return;
        }
        redirectWithFlash(ctx, deps, SECTION_PATHS.security, { kind: 'notice', text: pageLanguage(ctx).t('account.flash.factorSaved') });
      },
      async page(error, body) {
        if (body.json) return false;
        await renderAccount(ctx, deps, signedIn, 'security', { error });
        return true;
      },
    });
  };
}
