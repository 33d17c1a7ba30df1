/**
 * POST /login/federated-cancel: "Back to the app" from a federated page. Rules:
 * - the form's `uid` must be this browser's interaction at the login prompt (else interaction_expired);
 * - the authorization ends with `access_denied`, returned to the client's redirect URI with its
 *   `state` (oidc-provider's resume, inside this request).
 */
import type { Context, Next } from 'koa';
import { readBody } from '../../http/read-body.ts';
import type { HandlerServices } from '../deps.ts';
import { loadInteraction, redirectOrigin } from '../interaction-state.ts';
import { resumeAuthorization } from '../mfa/complete-login.ts';

export function createFederatedCancelHandler(deps: Pick<HandlerServices, 'provider'>) {
  return async function federatedCancel(ctx: Context, next: Next): Promise<void> {
    const body = await readBody(ctx);
    const provider = deps.provider();
    const interaction = await loadInteraction(provider, ctx, body.fields.uid);
    const returnTo = await provider.interactionResult(ctx.req, ctx.res, { error: 'access_denied', error_description: 'The user went back to the application without signing in.' });
    await resumeAuthorization(ctx, next, returnTo, redirectOrigin(interaction), body.json);
  };
}
