/**
 * The login page showing a refusal of the password step or of a passwordless passkey. Rules:
 * - an expired interaction is not shown here: the error middleware answers it;
 * - the page keeps the username as read, names the refusal's code and message, and has the
 *   refusal's status; a JSON caller gets `error`, `error_description` and `next: /login`;
 * - the page offers a passkey, whose success is a redirect to the client, so the client's origin
 *   is a form-action of the page's CSP.
 */
import type { Context } from 'koa';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import type { AuthError } from '../../errors/auth-error.ts';
import { loginPage } from '../../views/login-page.ts';
import type { HandlerServices } from '../deps.ts';
import { clientName, redirectOrigin, type Interaction } from '../interaction-state.ts';
import { errorBody, respond } from '../respond.ts';

export async function showLoginRefusal(
  ctx: Context,
  deps: Pick<HandlerServices, 'provider'>,
  request: { interaction: Interaction; json: boolean; username?: string },
  error: AuthError,
): Promise<boolean> {
  if (error.code === 'interaction_expired') return false;
  const { interaction, json, username } = request;
  const name = await clientName(deps.provider(), interaction);
  ctx.state.formActionOrigins = redirectOrigin(interaction);
  respond(ctx, json, error.status, () => loginPage({ uid: interaction.uid, clientName: name, ...(username === undefined ? {} : { username }), error: error.message, errorCode: error.code }), {
    ...errorBody(error),
    next: AUTH_ROUTES.login,
  });
  return true;
}
