/**
 * An upstream user without a link chooses: POST /login/federated-choice. Rules:
 * - the choice page (views/federated-pages.ts) is shown when a local account has the upstream's
 *   verified e-mail (200), or when the provider is for invited users only (403 `not_invited`,
 *   audited `login.federated.failure`); the upstream user waits on the interaction as `pending`;
 * - the form's `uid` must be this browser's interaction, and a pending upstream user must be
 *   there (else `attempt_expired`); `choice` is `link` or `create` (else 400 invalid_request);
 * - `link`: nothing is linked yet; the login page asks for the password of a Gatehouse account
 *   (the matched one's username filled in), and the second factor that follows links the
 *   upstream user to the account proved (mfa/complete-login.ts), audited `account.linked`;
 * - `create`: only when the provider provisions just in time (else `not_invited`) and with a
 *   verified e-mail (else `unverified_email`); the account is made and linked
 *   (federation/provision-account.ts), audited `account.provisioned`, then signed in as a
 *   returning user (sign-in-linked.ts).
 */
import type { Context, Next } from 'koa';
import { invalidRequest } from '../../errors/auth-error.ts';
import { provisionAccount } from '../../federation/provision-account.ts';
import type { UpstreamProvider } from '../../federation/upstream-provider.ts';
import { readBody } from '../../http/read-body.ts';
import { federatedChoicePage } from '../../views/federated-pages.ts';
import { pageLanguage } from '../../i18n/page-language.ts';
import { loginPage } from '../../views/login-page.ts';
import type { HandlerServices } from '../deps.ts';
import { loadInteraction, pageBranding, redirectOrigin, type Interaction } from '../interaction-state.ts';
import { federationState, saveFederationState, type PendingChoice, type UpstreamUser } from './federation-state.ts';
import { showFederatedRefusal } from './federated-refusal.ts';
import { signInLinked, type SignInLinkedDeps } from './sign-in-linked.ts';

export type FederatedChoiceDeps = SignInLinkedDeps & Pick<HandlerServices, 'federation' | 'accounts' | 'accountLinks'>;

export async function showChoice(ctx: Context, deps: FederatedChoiceDeps, interaction: Interaction, pending: PendingChoice, upstream: UpstreamProvider, name: string): Promise<void> {
  await saveFederationState(interaction, { pending });
  const invitedOnly = pending.matchedUsername === undefined;
  if (invitedOnly) {
    deps.audit.record('login.federated.failure', { provider: upstream.slug, ip: ctx.ip, reason: 'not_invited' });
    deps.metrics.login('federated', 'failure');
  }
  ctx.state.formActionOrigins = redirectOrigin(interaction);
  ctx.status = invitedOnly ? 403 : 200;
  ctx.type = 'html';
  ctx.body = federatedChoicePage({
    uid: interaction.uid,
    clientName: name,
    providerName: upstream.displayName,
    ...(pending.matchedUsername ? { matchedUsername: pending.matchedUsername } : {}),
    canCreate: upstream.provisioning === 'just_in_time' && pending.profile.email !== undefined,
    language: pageLanguage(ctx),
  });
}

export async function provisionAndSignIn(ctx: Context, next: Next, deps: FederatedChoiceDeps, interaction: Interaction, user: UpstreamUser): Promise<void> {
  const email = user.profile.email;
  if (!email) return showFederatedRefusal(ctx, deps, { interaction, upstream: { slug: user.provider, displayName: user.providerName } }, 'unverified_email');
  const { account, created } = await provisionAccount(deps, { provider: user.provider, subject: user.subject }, { ...user.profile, email });
  if (created) deps.audit.record('account.provisioned', { account_id: account.id, provider: user.provider, ip: ctx.ip });
  await signInLinked(ctx, next, deps, interaction, user, account);
}

export function createFederatedChoiceHandler(deps: FederatedChoiceDeps) {
  return async function federatedChoice(ctx: Context, next: Next): Promise<void> {
    const body = await readBody(ctx);
    const interaction = await loadInteraction(deps.provider(), ctx, body.fields.uid);
    const choice = body.fields.choice;
    if (choice !== 'link' && choice !== 'create') throw invalidRequest('Field "choice" must be "link" or "create".');
    const { pending } = federationState(interaction);
    const upstream = pending && (await deps.federation.directory.find(pending.provider));
    if (!pending || !upstream) return showFederatedRefusal(ctx, deps, { interaction, ...(upstream ? { upstream } : {}) }, 'attempt_expired');
    const { matchedUsername, ...user } = pending;
    if (choice === 'create') {
      if (upstream.provisioning !== 'just_in_time') return showFederatedRefusal(ctx, deps, { interaction, upstream }, 'not_invited');
      await saveFederationState(interaction, {});
      await provisionAndSignIn(ctx, next, deps, interaction, user);
      return;
    }
    await saveFederationState(interaction, { linking: user });
    ctx.state.formActionOrigins = redirectOrigin(interaction);
    ctx.status = 200;
    ctx.type = 'html';
    ctx.body = loginPage({
      uid: interaction.uid,
      client: await pageBranding(ctx, deps.provider(), interaction),
      ...(matchedUsername ? { username: matchedUsername } : {}),
      linking: { providerName: upstream.displayName },
      language: pageLanguage(ctx),
    });
  };
}
