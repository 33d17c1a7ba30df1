/**
 * The login page showing a refusal of the password step or of a passwordless passkey. Rules:
 * - an expired interaction is not shown here: the error middleware answers it;
 * - the page keeps the username as read, names the refusal's code and message, and has the
 *   refusal's status; a JSON caller gets `error`, `error_description` and `next: /login`;
 * - the page offers a passkey, whose success is a redirect to the client, and the upstream
 *   providers' buttons, which redirect to them, so those origins are form-actions of the page's
 *   CSP; while linking an upstream account it says so again (views/login-page.ts).
 */
import { pageLanguage } from '../../i18n/page-language.ts';
import type { Context } from 'koa';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import type { AuthError } from '../../errors/auth-error.ts';
import { loginPage } from '../../views/login-page.ts';
import type { HandlerServices } from '../deps.ts';
import { forgotPasswordUrl } from './forgot-password-link.ts';
import { pageBranding, redirectOrigin, type Interaction } from '../interaction-state.ts';
import { errorBody, respond } from '../respond.ts';
import { federationState } from '../federated/federation-state.ts';
import { loginProviders, type LoginProvidersDeps } from '../federated/login-providers.ts';

export type LoginRefusalDeps = Pick<HandlerServices, 'provider' | 'mailer'> & LoginProvidersDeps;

export async function showLoginRefusal(
  ctx: Context,
  deps: LoginRefusalDeps,
  request: { interaction: Interaction; json: boolean; username?: string },
  error: AuthError,
): Promise<boolean> {
  if (error.code === 'interaction_expired') return false;
  const { interaction, json, username } = request;
  const client = await pageBranding(ctx, deps.provider(), interaction);
  const providers = json ? undefined : await loginProviders(deps);
  const linking = federationState(interaction).linking;
  ctx.state.formActionOrigins = [...redirectOrigin(interaction), ...(providers?.origins ?? [])];
  const page = () => {
    const language = pageLanguage(ctx);
    return loginPage({
      uid: interaction.uid,
      client,
      ...(username === undefined ? {} : { username }),
      error: language.errorText(error),
      errorCode: error.code,
      ...(providers ? { providers: providers.buttons, homeRealm: providers.homeRealm } : {}),
      ...(linking ? { linking: { providerName: linking.providerName } } : {}),
      forgotPasswordUrl: forgotPasswordUrl(deps, interaction.uid),
      language,
    });
  };
  respond(ctx, json, error.status, page, {
    ...errorBody(error),
    next: AUTH_ROUTES.login,
  });
  return true;
}
