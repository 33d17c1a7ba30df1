/**
 * oidc-provider's default interaction policy (the prompts `login`, then `consent`), plus one
 * login check: an SSO session whose account can no longer be loaded (removed or disabled since it
 * signed in) asks for a login again — or answers `login_required` to a `prompt=none` request —
 * instead of failing. `select_account` is not a prompt of this policy: oidc-provider refuses it
 * (invalid_request "unsupported prompt value requested") and discovery does not list it.
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

/** Discovery's `prompt_values_supported`: `none` and every prompt the policy lets a client request. */
export function promptValuesSupported(policy: ReturnType<typeof createInteractionPolicy>): string[] {
  return ['none', ...policy.filter((prompt) => prompt.requestable).map((prompt) => prompt.name)];
}
