import Router from '@koa/router';
import type { Context } from 'koa';
import type { Provider } from 'oidc-provider';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { responseFormat } from '@gatehouse/http';
import { loginPage } from '../views/login-page.ts';
import { clientName, loadInteraction } from './interaction-state.ts';
import { createLoginHandler } from './login.ts';
import { createMfaVerifyHandler } from './mfa-verify.ts';
import { createPushPollHandler, createPushStatusHandler } from './push-poll.ts';
import type { InteractionDeps } from './deps.ts';

/** Renders the password step of an interaction (HTML, or JSON for API clients). */
export async function renderLogin(ctx: Context, provider: Provider, uid: string): Promise<void> {
  const interaction = await provider.Interaction.find(uid);
  const name = interaction ? await clientName(provider, interaction) : '';
  ctx.status = 200;
  if (responseFormat(ctx) === 'json') {
    ctx.body = { status: 'login_required', interaction: uid, next: AUTH_ROUTES.login, client: name };
    return;
  }
  ctx.type = 'html';
  ctx.body = loginPage({ uid, clientName: name });
}

export function interactionRoutes(deps: InteractionDeps): Router {
  const router = new Router();
  router.post(AUTH_ROUTES.login, createLoginHandler(deps));
  router.post(AUTH_ROUTES.mfaVerify, createMfaVerifyHandler(deps));
  router.get('/mfa/push/:id', createPushPollHandler(deps));
  router.get('/mfa/push/:id/status', createPushStatusHandler(deps));
  router.get('/interaction/:uid', async (ctx) => {
    const provider = deps.provider();
    const interaction = await loadInteraction(provider, ctx, ctx.params.uid);
    await renderLogin(ctx, provider, interaction.uid);
  });
  return router;
}
