/**
 * GET /login/federated/<slug>/callback: the upstream sends the browser back. Rules, in order:
 * - the interaction must be this browser's (signed cookie) and at the login prompt, else the
 *   error middleware's interaction_expired page (nothing is left to resume);
 * - the provider must exist and be enabled, else 404 unknown_provider;
 * - an attempt must be waiting on the interaction, else `attempt_expired` (never started, or its
 *   one callback already came); one started for another provider is `state_mismatch`; one older
 *   than ATTEMPT_TTL_MS (injected clock) is `attempt_expired`; the attempt is used up by this
 *   callback whatever follows;
 * - the answer is checked and the code exchanged (federation/upstream-client.ts): `state`
 *   (constant-time, before anything is sent upstream), error=access_denied (`upstream_refused`),
 *   PKCE, the ID token and its `nonce`; every failure is its page (federated-refusal.ts);
 * - a returning user is found by the link (provider, upstream subject) alone, never by e-mail,
 *   and signed in (sign-in-linked.ts);
 * - no link: an upstream verified e-mail that a local account has, or a provider for invited
 *   users only, leads to the choice page (federated-choice.ts): link a local account by proving
 *   it, or create a new one; a new account needs a verified e-mail (else `unverified_email`);
 *   otherwise the account is provisioned just in time (federation/provision-account.ts),
 *   audited `account.provisioned`, and signed in.
 */
import type { Context, Next } from 'koa';
import { federatedCallbackUrl } from '../../federation/callback-url.ts';
import { UpstreamError, type UpstreamIdentity } from '../../federation/upstream-client.ts';
import { upstreamMfa } from '../../federation/upstream-mfa.ts';
import { upstreamProfile } from '../../federation/upstream-profile.ts';
import type { UpstreamProvider } from '../../federation/upstream-provider.ts';
import type { HandlerServices } from '../deps.ts';
import { clientName, loadInteraction, type Interaction } from '../interaction-state.ts';
import { ATTEMPT_TTL_MS, federationState, saveFederationState, type UpstreamUser } from './federation-state.ts';
import { showFederatedRefusal } from './federated-refusal.ts';
import { provisionAndSignIn, showChoice, type FederatedChoiceDeps } from './federated-choice.ts';
import { signInLinked } from './sign-in-linked.ts';

export type FederatedCallbackDeps = FederatedChoiceDeps & Pick<HandlerServices, 'federation' | 'config'>;

/** Local accounts whose e-mail is exactly this one (ignoring case). */
async function emailOwners(deps: Pick<HandlerServices, 'accounts'>, email: string): Promise<string[]> {
  const wanted = email.toLowerCase();
  const found = await deps.accounts.page({ search: email, limit: 50 });
  return found.filter((account) => account.email.toLowerCase() === wanted).map((account) => account.username);
}

export function createFederatedCallbackHandler(deps: FederatedCallbackDeps) {
  return async function federatedCallback(ctx: Context, next: Next): Promise<void> {
    const interaction = await loadInteraction(deps.provider(), ctx);
    const upstream = await deps.federation.directory.find(String(ctx.params.slug ?? ''));
    if (!upstream) {
      await showFederatedRefusal(ctx, deps, { interaction }, 'unknown_provider');
      return;
    }
    const state = federationState(interaction);
    const attempt = state.attempt;
    if (!attempt) return showFederatedRefusal(ctx, deps, { interaction, upstream }, 'attempt_expired');
    await saveFederationState(interaction, { ...state, attempt: undefined });
    if (attempt.provider !== upstream.slug) return showFederatedRefusal(ctx, deps, { interaction, upstream }, 'state_mismatch');
    if (deps.clock() - attempt.startedAt >= ATTEMPT_TTL_MS) return showFederatedRefusal(ctx, deps, { interaction, upstream }, 'attempt_expired');

    const callbackUrl = new URL(federatedCallbackUrl(deps.config.issuer, upstream.slug));
    callbackUrl.search = ctx.querystring;
    let identity: UpstreamIdentity;
    try {
      identity = await deps.federation.upstream.finish(upstream, await deps.federation.directory.credentials(upstream.slug), callbackUrl, attempt);
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      return showFederatedRefusal(ctx, deps, { interaction, upstream }, error.code);
    }
    await resolveAccount(ctx, next, deps, interaction, upstream, identity);
  };
}

async function resolveAccount(ctx: Context, next: Next, deps: FederatedCallbackDeps, interaction: Interaction, upstream: UpstreamProvider, identity: UpstreamIdentity): Promise<void> {
  const user: UpstreamUser = {
    provider: upstream.slug,
    providerName: upstream.displayName,
    subject: identity.subject,
    profile: upstreamProfile(upstream, identity),
    upstreamMfa: upstreamMfa(upstream, identity),
  };
  const link = await deps.accountLinks.find(upstream.slug, identity.subject);
  const linked = link && (await deps.accounts.findById(link.accountId));
  if (linked) return signInLinked(ctx, next, deps, interaction, user, linked);

  const owners = user.profile.email ? await emailOwners(deps, user.profile.email) : [];
  if (owners.length > 0 || upstream.provisioning === 'invited_only') {
    await showChoice(ctx, deps, interaction, { ...user, ...(owners[0] ? { matchedUsername: owners[0] } : {}) }, upstream, await clientName(deps.provider(), interaction));
    return;
  }
  if (!user.profile.email) {
    return showFederatedRefusal(ctx, deps, { interaction, upstream }, 'unverified_email', identity.unverifiedEmail ? { email: identity.unverifiedEmail } : undefined);
  }
  await provisionAndSignIn(ctx, next, deps, interaction, user);
}
