/**
 * The interaction policy: oidc-provider's default prompts (`login`, then `consent`) behind a
 * `select_account` prompt (OIDC Core 3.1.2.1). Rules:
 * - a browser holds one account (its SSO session), so selecting an account means: continue as
 *   the session's account, or sign in with another one, which replaces it;
 * - `prompt=select_account` with a session whose account loads asks that question first
 *   (interactions/select-account-step.ts); without a session, or with an account that no longer
 *   loads, there is nothing to select and the login asks for an account instead;
 * - a login completed within the same authorization is the account chosen: it is not asked again;
 * - "another account" asks for the login (check `another_account`) even though a session exists;
 * - `prompt=none` never needs a selection here (the one account is the selection), so it never
 *   answers `account_selection_required`; `none` with any other value, `select_account`
 *   included, is oidc-provider's invalid_request "prompt none must only be used alone";
 * - an SSO session whose account can no longer be loaded (removed or disabled since it signed
 *   in) asks for a login again — or answers `login_required` to a `prompt=none` request —
 *   instead of failing.
 */
import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import type { SelectAccountResult } from '../views/select-account-page.ts';

const { Check, Prompt, base } = interactionPolicy;

type Result = { login?: unknown; select_account?: SelectAccountResult } | undefined;
const resultOf = (ctx: KoaContextWithOIDC) => (ctx.oidc as { result?: Result }).result;

function selectAccountPrompt() {
  const prompt = new Prompt({ name: 'select_account', requestable: true });
  // The library's own check asks whenever the prompt is requested; ours asks only when there is
  // an account to continue as, and not after a login of this same authorization.
  prompt.checks.clear();
  prompt.checks.add(
    new Check('select_account_prompt', 'the end-user is asked which account to use', 'account_selection_required', (ctx: KoaContextWithOIDC) => {
      const { oidc } = ctx;
      const asked = oidc.prompts.has('select_account') && oidc.promptPending('select_account');
      return asked && oidc.session?.accountId && oidc.account && !resultOf(ctx)?.login ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT;
    }),
  );
  return prompt;
}

export function createInteractionPolicy() {
  const policy = base();
  policy.add(selectAccountPrompt(), 0);
  const login = policy.get('login')!;
  login.checks.add(
    new Check('account_unavailable', 'the account of this session is no longer available', 'login_required', (ctx: KoaContextWithOIDC) =>
      ctx.oidc.session?.accountId && !ctx.oidc.account ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT,
    ),
  );
  login.checks.add(
    new Check('another_account', 'the end-user chose to sign in with another account', 'login_required', (ctx: KoaContextWithOIDC) => {
      const result = resultOf(ctx);
      return result?.select_account?.another === true && !result.login ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT;
    }),
  );
  return policy;
}

/** Discovery's `prompt_values_supported`: `none` and every prompt the policy lets a client request. */
export function promptValuesSupported(policy: ReturnType<typeof createInteractionPolicy>): string[] {
  return ['none', ...policy.filter((prompt) => prompt.requestable).map((prompt) => prompt.name)];
}
