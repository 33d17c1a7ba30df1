/**
 * oidc-provider's default interaction policy, plus one login check: an SSO session whose
 * account can no longer be loaded (removed or disabled since it signed in) asks for a login
 * again — or answers `login_required` to a `prompt=none` request — instead of failing.
 */
import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';

const { Check, base } = interactionPolicy;

export function createInteractionPolicy() {
  const policy = base();
  policy.get('login')!.checks.add(
    new Check('account_unavailable', 'the account of this session is no longer available', 'login_required', (ctx: KoaContextWithOIDC) =>
      ctx.oidc.session?.accountId && !ctx.oidc.account ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT,
    ),
  );
  return policy;
}
