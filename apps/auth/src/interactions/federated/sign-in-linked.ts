/**
 * Signing in the account an upstream user is linked to. Rules:
 * - a disabled account gets no session: 403 account_disabled, audited `login.account_disabled`
 *   and `login.federated.failure`;
 * - the link's last use is recorded, the sign-in audited `login.federated` (with whether the
 *   upstream's sign-in counted as two factors) and counted;
 * - the upstream's MFA trusted (federation/upstream-mfa.ts): the interaction ends logged in with
 *   amr `fed mfa` and the multi-factor acr (mfa/complete-login.ts endLogin); the answer is a
 *   page that resumes the authorization by a navigation of its own (views/federated-pages.ts
 *   federatedContinuePage), not a redirect: this request is the last hop of the upstream's form
 *   post, whose form-action would refuse the redirect to the app;
 * - otherwise a Gatehouse factor is asked: the second-factor page of the password step (TOTP
 *   enrollment and recovery codes for an account without any second factor), whose success ends with amr
 *   `fed` and the factor's methods.
 */
import type { Context, Next } from 'koa';
import type { Account } from '../../accounts/account-store.ts';
import type { HandlerServices } from '../deps.ts';
import { clientName, redirectOrigin, type Interaction } from '../interaction-state.ts';
import { prepareSecondFactor, type PrepareSecondFactorDeps } from '../login/prepare-second-factor.ts';
import { endLogin } from '../mfa/complete-login.ts';
import { pageLanguage } from '../../i18n/page-language.ts';
import { federatedContinuePage } from '../../views/federated-pages.ts';
import { renderMfaStep, type MfaStepDeps } from '../mfa-step.ts';
import type { UpstreamUser } from './federation-state.ts';
import { showFederatedRefusal, type FederatedRefusalDeps } from './federated-refusal.ts';

/** The session's amr when the upstream's own MFA stood for both factors. */
export const FEDERATED_MFA_AMR = ['fed', 'mfa'];

export type SignInLinkedDeps = FederatedRefusalDeps & PrepareSecondFactorDeps & MfaStepDeps & Pick<HandlerServices, 'provider' | 'clock' | 'knownDevices' | 'accountLinks'>;

export async function signInLinked(ctx: Context, _next: Next, deps: SignInLinkedDeps, interaction: Interaction, user: UpstreamUser & { displayName?: string }, account: Account): Promise<void> {
  const upstream = { slug: user.provider, displayName: user.providerName };
  if (account.disabledAt !== null) {
    deps.audit.record('login.account_disabled', { account_id: account.id, ip: ctx.ip });
    await showFederatedRefusal(ctx, deps, { interaction, upstream }, 'account_disabled');
    return;
  }
  await deps.accountLinks.touch(user.provider, user.subject);
  deps.audit.record('login.federated', { account_id: account.id, provider: user.provider, ip: ctx.ip, upstream_mfa: user.upstreamMfa });
  deps.metrics.login('federated', 'success');
  if (user.upstreamMfa) {
    const resumeUrl = new URL(await endLogin(ctx, deps, account.id, [...FEDERATED_MFA_AMR])).pathname;
    ctx.state.formActionOrigins = redirectOrigin(interaction);
    ctx.status = 200;
    ctx.type = 'html';
    ctx.body = federatedContinuePage({ resumeUrl, clientName: await clientName(deps.provider(), interaction), language: pageLanguage(ctx) });
    return;
  }
  const pending = await prepareSecondFactor(deps, interaction, account, { federatedBy: user.provider });
  await renderMfaStep(ctx, deps, { interaction, pending, json: false, status: 200 });
}
