/**
 * The account-selection step of an interaction (the `select_account` prompt,
 * oidc/interaction-policy.ts), as a page or JSON. Rules:
 * - it names the client (its registered name) and the session's account, and offers "Continue as"
 *   that account or "Use another account";
 * - a JSON caller gets `{ status: 'account_selection_required', interaction, next:
 *   '/select-account', client, username, choices: ['continue', 'another'] }`;
 * - a refusal of its form redirected here (step-refusal.ts) is shown on it once, with its status,
 *   message and code;
 * - "Continue" ends in a redirect to the client: this page's form-action allows its origin.
 */
import { pageLanguage } from '../i18n/page-language.ts';
import type { Context } from 'koa';
import type { Provider } from 'oidc-provider';
import { selectAccountPage } from '../views/select-account-page.ts';
import { clientName, redirectOrigin, type Interaction } from './interaction-state.ts';
import { errorBody, respond } from './respond.ts';
import type { AuthError } from '../errors/auth-error.ts';
import type { HandlerServices } from './deps.ts';

/** Where the account-selection form posts (only this server's own page uses it). */
export const SELECT_ACCOUNT_PATH = '/select-account';

/** The answers the step accepts, in the order the page offers them. */
export const SELECT_ACCOUNT_CHOICES = ['continue', 'another'] as const;

export type SelectAccountStepDeps = Pick<HandlerServices, 'accounts'>;

export async function renderSelectAccountStep(ctx: Context, deps: SelectAccountStepDeps & { provider: Provider }, interaction: Interaction, json: boolean, error?: AuthError): Promise<void> {
  const accountId = String(interaction.session?.accountId ?? '');
  const [client, account] = await Promise.all([clientName(deps.provider, interaction), deps.accounts.findById(accountId)]);
  const username = account?.username ?? '';
  ctx.state.formActionOrigins = redirectOrigin(interaction);
  const page = () => {
    const language = pageLanguage(ctx);
    return selectAccountPage({ uid: interaction.uid, clientName: client, username, ...(error ? { error: language.errorText(error), errorCode: error.code } : {}), language });
  };
  respond(ctx, json, error?.status ?? 200, page, {
    ...(error ? errorBody(error) : {}),
    status: 'account_selection_required',
    interaction: interaction.uid,
    next: SELECT_ACCOUNT_PATH,
    client,
    username,
    choices: SELECT_ACCOUNT_CHOICES,
  });
}
