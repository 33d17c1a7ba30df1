/**
 * The refusals of a federated sign-in, each a page the user can act on. Rules:
 * - each code has its status and its message, naming the provider: `upstream_unavailable` 502,
 *   `upstream_refused` 403, `upstream_error` 502, `state_mismatch` 400,
 *   `invalid_upstream_response` 502, `unverified_email` 403, `attempt_expired` 400,
 *   `not_invited` 403, `account_disabled` 403, `unknown_provider` 404, `already_linked` 409;
 * - each is audited `login.federated.failure` with the provider and the reason (the unknown
 *   provider aside: its name is the caller's), never with a token, code or secret;
 * - the page offers the way on (views/federated-pages.ts): try again, sign in another way, back
 *   to the app; a refusal without a live interaction is the error middleware's
 *   (interaction_expired).
 */
import type { Context } from 'koa';
import { AuthError, type AuthErrorCode } from '../../errors/auth-error.ts';
import type { FederatedFailureReason } from '../../audit/audit-events.ts';
import type { UpstreamProvider } from '../../federation/upstream-provider.ts';
import { federatedErrorPage } from '../../views/federated-pages.ts';
import type { HandlerServices } from '../deps.ts';
import { clientName, redirectOrigin, type Interaction } from '../interaction-state.ts';

export type FederatedRefusalCode = FederatedFailureReason | 'unknown_provider' | 'already_linked';

const STATUS: Record<FederatedRefusalCode, number> = {
  upstream_unavailable: 502,
  upstream_refused: 403,
  upstream_error: 502,
  state_mismatch: 400,
  invalid_upstream_response: 502,
  unverified_email: 403,
  attempt_expired: 400,
  not_invited: 403,
  account_disabled: 403,
  unknown_provider: 404,
  already_linked: 409,
};

const TITLE: Record<FederatedRefusalCode, string> = {
  upstream_unavailable: 'Provider unavailable',
  upstream_refused: 'Sign-in cancelled',
  upstream_error: 'Provider error',
  state_mismatch: 'Sign-in not recognised',
  invalid_upstream_response: 'Sign-in refused',
  unverified_email: 'E-mail address not verified',
  attempt_expired: 'Sign-in expired',
  not_invited: 'No account for you yet',
  account_disabled: 'Account disabled',
  unknown_provider: 'Unknown provider',
  already_linked: 'Already linked',
};

export function federatedMessage(code: FederatedRefusalCode, providerName: string, detail?: { email?: string }): string {
  switch (code) {
    case 'upstream_unavailable':
      return `${providerName} could not be reached, so you could not be signed in with it. Try again in a moment, or sign in another way.`;
    case 'upstream_refused':
      return `${providerName} did not sign you in: the sign-in was cancelled or refused there.`;
    case 'upstream_error':
      return `${providerName} answered with an error, so you could not be signed in with it. Try again, or sign in another way.`;
    case 'state_mismatch':
      return `This answer from ${providerName} does not belong to the sign-in started in this browser, so it was refused. Start the sign-in again.`;
    case 'invalid_upstream_response':
      return `The answer from ${providerName} failed Gatehouse's security checks, so you could not be signed in with it.`;
    case 'unverified_email':
      return detail?.email
        ? `${providerName} did not confirm that your e-mail address ${detail.email} is verified. Verify it at ${providerName}, then try again.`
        : `${providerName} did not share a verified e-mail address, which a new account needs. Verify your address at ${providerName}, then try again.`;
    case 'attempt_expired':
      return `This sign-in with ${providerName} is no longer waiting for an answer (it took too long, or was already used). Start it again.`;
    case 'not_invited':
      return `No Gatehouse account is linked to your ${providerName} account, and accounts for ${providerName} users are created by an administrator.`;
    case 'account_disabled':
      return 'This account is disabled. Contact your administrator.';
    case 'unknown_provider':
      return 'This sign-in provider does not exist or is turned off. Sign in another way.';
    case 'already_linked':
      return `Your Gatehouse account is already linked to another ${providerName} account. Remove that link on your account page first.`;
  }
}

export function federatedError(code: FederatedRefusalCode, providerName: string, detail?: { email?: string }): AuthError {
  return new AuthError(STATUS[code], code as AuthErrorCode, federatedMessage(code, providerName, detail));
}

export type FederatedRefusalDeps = Pick<HandlerServices, 'provider' | 'audit' | 'metrics'>;

/** Answers the refusal with its page (status, message, code, the way on) and audits it. */
export async function showFederatedRefusal(
  ctx: Context,
  deps: FederatedRefusalDeps,
  request: { interaction: Interaction; upstream?: Pick<UpstreamProvider, 'slug' | 'displayName'> },
  code: FederatedRefusalCode,
  detail?: { email?: string },
): Promise<void> {
  const { interaction, upstream } = request;
  if (upstream && code !== 'unknown_provider' && code !== 'already_linked') {
    deps.audit.record('login.federated.failure', { provider: upstream.slug, ip: ctx.ip, reason: code });
    deps.metrics.login('federated', 'failure');
  }
  const name = await clientName(deps.provider(), interaction);
  ctx.state.formActionOrigins = redirectOrigin(interaction);
  ctx.status = STATUS[code];
  ctx.type = 'html';
  const retry = upstream && code !== 'account_disabled' && code !== 'unknown_provider' ? { slug: upstream.slug, displayName: upstream.displayName } : undefined;
  ctx.body = federatedErrorPage({
    title: TITLE[code],
    message: federatedMessage(code, upstream?.displayName ?? 'The provider', detail),
    code,
    ...(ctx.state.requestId ? { requestId: String(ctx.state.requestId) } : {}),
    way: { uid: interaction.uid, clientName: name, ...(retry ? { retry } : {}) },
  });
}
