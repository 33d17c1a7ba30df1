/**
 * Starting a federated sign-in: POST /login/federated/<slug> from the login page's button (and
 * the same start from home-realm discovery, home-realm.ts). Rules:
 * - the interaction must be this browser's and match the form's `uid` (else interaction_expired);
 * - the provider must exist and be enabled (else 404 unknown_provider, on a page with the way on);
 * - a fresh attempt (provider, state, nonce, PKCE verifier, start time) replaces any earlier one
 *   on the interaction (federation-state.ts); the browser gets a 303 to the provider's
 *   authorization endpoint carrying `state` and the PKCE challenge (federation/upstream-client.ts);
 * - a provider that cannot be reached (discovery) is the `upstream_unavailable` page, with
 *   the way on.
 */
import type { Context } from 'koa';
import { readBody } from '../../http/read-body.ts';
import { federatedCallbackUrl } from '../../federation/callback-url.ts';
import { UpstreamError } from '../../federation/upstream-client.ts';
import type { UpstreamProvider } from '../../federation/upstream-provider.ts';
import type { HandlerServices } from '../deps.ts';
import { loadInteraction, type Interaction } from '../interaction-state.ts';
import { saveFederationState } from './federation-state.ts';
import { showFederatedRefusal, type FederatedRefusalDeps } from './federated-refusal.ts';

export type StartFederatedDeps = FederatedRefusalDeps & Pick<HandlerServices, 'provider' | 'federation' | 'config' | 'clock'>;

/** Sends the browser to the provider with a new attempt, or shows why it cannot go. */
export async function startFederatedSignIn(ctx: Context, deps: StartFederatedDeps, interaction: Interaction, upstream: UpstreamProvider): Promise<void> {
  let start;
  try {
    const credentials = await deps.federation.directory.credentials(upstream.slug);
    start = await deps.federation.upstream.start(upstream, credentials, federatedCallbackUrl(deps.config.issuer, upstream.slug));
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    await showFederatedRefusal(ctx, deps, { interaction, upstream }, error.code === 'state_mismatch' ? 'upstream_error' : error.code);
    return;
  }
  await saveFederationState(interaction, { attempt: { ...start.checks, provider: upstream.slug, startedAt: deps.clock() } });
  ctx.status = 303;
  ctx.redirect(start.url.href);
}

export function createStartFederatedHandler(deps: StartFederatedDeps) {
  return async function startFederated(ctx: Context): Promise<void> {
    const body = await readBody(ctx);
    const interaction = await loadInteraction(deps.provider(), ctx, body.fields.uid);
    const upstream = await deps.federation.directory.find(String(ctx.params.slug ?? ''));
    if (!upstream) {
      await showFederatedRefusal(ctx, deps, { interaction }, 'unknown_provider');
      return;
    }
    await startFederatedSignIn(ctx, deps, interaction, upstream);
  };
}
